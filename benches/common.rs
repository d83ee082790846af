//! Helpers shared by the benches (each bench includes this file as a module).
use std::time::Duration;

/// This thread's CPU time so far (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), so that a figure per
/// CPU-second holds on a machine shared with other jobs; `None` off 64-bit Linux.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn thread_cpu_time() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: glibc's clock_gettime writes one timespec (two i64 on 64-bit Linux) to `ts`.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}
