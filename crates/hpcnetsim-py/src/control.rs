//! Runs under Python's control: Ctrl-C (checked between chunks of the run), progress
//! callbacks and budgets, with the GIL released while the engine works.

use hpcnetsim_core::engine::control::{Budget, Control, Observer, Progress};
use hpcnetsim_core::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Checks for signals (KeyboardInterrupt) and calls the progress callback, under the GIL.
pub struct PyObserver {
    callback: Option<Py<PyAny>>,
    /// The Python error that stopped the run (KeyboardInterrupt, or the callback's).
    pub error: Option<PyErr>,
    /// The cores the callback last said the run may use (it returned an int).
    cores: Option<usize>,
}

impl Observer for PyObserver {
    fn observe(&mut self, p: &Progress) -> hpcnetsim_core::Result<()> {
        let outcome = Python::attach(|py| -> PyResult<()> {
            py.check_signals()?;
            if let Some(cb) = &self.callback {
                let d = PyDict::new(py);
                d.set_item("cycle", p.cycle)?;
                d.set_item("phase", p.phase)?;
                d.set_item("in_flight", p.in_flight)?;
                d.set_item("delivered", p.delivered)?;
                d.set_item("wall_seconds", p.wall_seconds)?;
                let answer = cb.call1(py, (d,))?;
                // A callback may answer with the cores the run may use from now on.
                if let Ok(n) = answer.extract::<usize>(py) {
                    self.cores = Some(n);
                }
            }
            Ok(())
        });
        outcome.map_err(|e| {
            self.error = Some(e);
            Error::Interrupted
        })
    }

    fn cores(&mut self) -> Option<usize> {
        self.cores
    }
}

/// Options every controlled run takes from Python.
pub struct RunOptions {
    pub progress: Option<Py<PyAny>>,
    pub budget: Budget,
    pub check: bool,
    /// Threads of the simulation (0: automatic).
    pub threads: usize,
}

/// Runs `f` with the GIL released under a control built from `opts`; a KeyboardInterrupt
/// (or an error of the callback) is raised as itself.
pub fn controlled<T: Send>(
    py: Python<'_>,
    opts: RunOptions,
    f: impl FnOnce(&mut Control) -> hpcnetsim_core::Result<T> + Send,
) -> PyResult<T> {
    Control::validate(&opts.budget).map_err(crate::to_py)?;
    let mut obs = PyObserver { callback: opts.progress, error: None, cores: None };
    let budget = opts.budget;
    let check = opts.check;
    let threads = opts.threads;
    let out = py.detach(|| {
        let mut ctl = Control::new(Some(&mut obs), budget);
        ctl.check |= check;
        ctl.threads = threads;
        f(&mut ctl)
    });
    match out {
        Ok(v) => Ok(v),
        Err(Error::Interrupted) => {
            Err(obs.error.take().unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")))
        }
        Err(e) => Err(crate::to_py(e)),
    }
}

/// Cancels every run of a parallel batch once a flag is set.
struct Flag<'a>(&'a std::sync::atomic::AtomicBool);

impl Observer for Flag<'_> {
    fn observe(&mut self, _: &Progress) -> hpcnetsim_core::Result<()> {
        match self.0.load(std::sync::atomic::Ordering::Relaxed) {
            true => Err(Error::Interrupted),
            false => Ok(()),
        }
    }
}

/// Runs `run` on every item in parallel (rayon) while this thread watches for Ctrl-C;
/// results in the order given.
pub fn parallel<C: Sync, T: Send>(
    py: Python<'_>,
    items: &[C],
    run: impl Fn(&C, &mut Control) -> hpcnetsim_core::Result<T> + Sync,
) -> PyResult<Vec<T>> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let cancel = AtomicBool::new(false);
    let mut signal: Option<PyErr> = None;
    let out = py.detach(|| {
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                items
                    .par_iter()
                    .map(|c| {
                        let mut flag = Flag(&cancel);
                        run(c, &mut Control::new(Some(&mut flag), Budget::default()))
                    })
                    .collect::<hpcnetsim_core::Result<Vec<T>>>()
            });
            while !worker.is_finished() {
                std::thread::sleep(std::time::Duration::from_millis(50));
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    signal = Some(e);
                    cancel.store(true, Ordering::Relaxed);
                }
            }
            worker.join().expect("simulation threads do not panic")
        })
    });
    match out {
        Ok(v) => Ok(v),
        Err(Error::Interrupted) => {
            Err(signal.unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")))
        }
        Err(e) => Err(crate::to_py(e)),
    }
}
