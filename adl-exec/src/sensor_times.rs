//! Each sensor's time in a sample's read: what a loader's statistics split
//! the dataset's read by. A [`SensorSet`](crate::SensorSet) reads each of
//! its sensors through [`timed_sensor`]; a loader wraps the reads it times
//! in [`sensor_times`] and gets each sensor's share. Outside of it,
//! `timed_sensor` is one thread-local check.

use std::cell::RefCell;
use std::time::{Duration, Instant};

thread_local! {
    /// The times of the read being measured on this thread, by the
    /// sensor's position in its set; `None` where none is.
    static TIMES: RefCell<Option<Vec<Duration>>> = const { RefCell::new(None) };
}

/// Read the sensor at `position` of a set (its `get`), timed where a
/// [`sensor_times`] on this thread asks.
#[inline]
pub fn timed_sensor<T>(position: usize, read: impl FnOnce() -> T) -> T {
    if !TIMES.with(|t| t.borrow().is_some()) {
        return read();
    }
    let start = Instant::now();
    let out = read();
    let took = start.elapsed();
    TIMES.with(|t| {
        if let Some(times) = t.borrow_mut().as_mut() {
            if times.len() <= position {
                times.resize(position + 1, Duration::ZERO);
            }
            times[position] += took;
        }
    });
    out
}

/// Run `read` (a sample's `get`), and say how long each sensor of the set
/// it read took, by the sensor's position (empty where it reads no set).
/// A panic in `read` leaves this thread as it was.
pub fn sensor_times<T>(read: impl FnOnce() -> T) -> (T, Vec<Duration>) {
    /// Puts back what was being measured before, even on a panic.
    struct Restore(Option<Option<Vec<Duration>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                TIMES.with(|t| *t.borrow_mut() = outer);
            }
        }
    }
    let mut restore = Restore(Some(TIMES.with(|t| t.borrow_mut().replace(Vec::new()))));
    let out = read();
    let outer = restore.0.take().unwrap_or_default();
    let times = TIMES.with(|t| std::mem::replace(&mut *t.borrow_mut(), outer));
    (out, times.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sensor_is_timed_by_position_only_when_asked() {
        assert_eq!(timed_sensor(0, || 7), 7, "not measured: just the read");
        let (sum, times) = sensor_times(|| {
            let a = timed_sensor(0, || {
                std::thread::sleep(Duration::from_millis(5));
                1
            });
            let b = timed_sensor(2, || 2);
            a + b
        });
        assert_eq!(sum, 3);
        assert_eq!(times.len(), 3);
        assert!(times[0] >= Duration::from_millis(5), "{times:?}");
        assert!(times[1].is_zero());
        let (_, none) = sensor_times(|| 0);
        assert!(none.is_empty());
    }

    #[test]
    fn a_panicking_read_leaves_the_thread_as_it_was() {
        let caught = std::panic::catch_unwind(|| sensor_times(|| timed_sensor(0, || panic!("x"))));
        assert!(caught.is_err());
        assert!(TIMES.with(|t| t.borrow().is_none()));
    }
}
