//! The files a config names (a fabric topology's files, `routing.tables`, `workload.trace`),
//! made relative to the folder of the file the config was read from: a config and its inputs
//! move together, and the same file runs alike from any working directory. A config given as
//! text or JSON without a file names them relative to the working directory.

use std::path::Path;

use super::Config;

impl Config {
    /// This config with its relative file names joined to `dir` (absolute ones unchanged).
    pub(crate) fn files_relative_to(mut self, dir: &Path) -> Config {
        let rebase = |file: &mut String| {
            if !file.is_empty() && !Path::new(file.as_str()).is_absolute() {
                *file = dir.join(file.as_str()).to_string_lossy().into_owned();
            }
        };
        self.topology = crate::topology::spec::files_relative_to(&self.topology, dir);
        if let super::Method::Table(t) = &mut self.routing.method {
            if let Some(tables) = t.tables.as_mut() {
                rebase(tables);
            }
        }
        if let Some(trace) = self.workload.as_mut().and_then(|w| w.trace.as_mut()) {
            rebase(trace);
        }
        self
    }
}
