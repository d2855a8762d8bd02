//! Runs a step's jobs on the current thread pool by self-scheduling: every thread of the pool
//! takes the next job not yet taken until none is left, and the call returns when all are
//! done.
//!
//! Why not `rayon::join` down a list of jobs: each join whose second half another thread
//! stole ends in a wait for that thread, and on a virtual machine a waiting thread soon
//! sleeps and takes 50-100 µs to wake, so a list of jobs ended in a chain of such wake-ups
//! (docs/performance.md, "More partitions than threads"). Here a thread that runs out of jobs
//! has only the one wait for the pool's last job; and with more jobs than threads, a thread
//! that drew light jobs takes more of them, which balances a step whose jobs differ in size.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// Runs `run` on each of `jobs`, in the order given as threads come free, on the pool this
/// is called from (every thread of it, this one included).
pub(super) fn run_each<J: Send>(jobs: Vec<J>, run: impl Fn(J) + Sync) {
    // A slot per job: the counter hands each index to one thread, so each lock is taken
    // once, uncontended.
    let slots: Vec<Mutex<Option<J>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let next = AtomicUsize::new(0);
    rayon::broadcast(|_| {
        while let Some(slot) = slots.get(next.fetch_add(1, Relaxed)) {
            let job = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
            if let Some(job) = job {
                run(job);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::run_each;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    #[test]
    fn every_job_runs_once_on_a_pool_of_any_size() {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut done = vec![0u32; 37];
            let sum = AtomicU64::new(0);
            pool.install(|| {
                run_each(done.iter_mut().enumerate().collect(), |(i, d): (usize, &mut u32)| {
                    *d += 1;
                    sum.fetch_add(i as u64, Relaxed);
                })
            });
            assert!(done.iter().all(|&d| d == 1), "{threads} threads: {done:?}");
            assert_eq!(sum.load(Relaxed), (0..37).sum::<u64>());
        }
    }
}
