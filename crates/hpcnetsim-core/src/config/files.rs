//! The files a config names (a fabric topology's files, `routing.tables`, `workload.trace`),
//! made relative to the folder of the file the config was read from: a config and its inputs
//! move together, and the same file runs alike from any working directory. A config given as
//! text or JSON without a file names them relative to the working directory.

use std::path::Path;

use super::Config;

impl Config {
    /// This config with its relative file names joined to `dir` (absolute ones unchanged).
    pub(crate) fn files_relative_to(mut self, dir: &Path) -> Config {
        let relative = |file: &str| relative_to(dir, file);
        self.topology = spec_relative_to(&self.topology, dir);
        if let super::Method::Table(t) = &mut self.routing.method {
            t.tables = t.tables.as_deref().map(relative);
        }
        if let Some(w) = self.workload.as_mut() {
            w.trace = w.trace.as_deref().map(relative);
        }
        self
    }
}

/// `file` joined to `dir` when it is relative (an absolute or empty name unchanged).
fn relative_to(dir: &Path, file: &str) -> String {
    match file.is_empty() || Path::new(file).is_absolute() {
        true => file.to_string(),
        false => dir.join(file).to_string_lossy().into_owned(),
    }
}

/// Topology `spec` with the files it names (a fabric's) relative to `dir`: the expressions of
/// an experiment's points build their network from the experiment file's folder.
pub fn spec_relative_to(spec: &str, dir: &Path) -> String {
    crate::topology::spec::map_files(spec, |file| relative_to(dir, file))
}
