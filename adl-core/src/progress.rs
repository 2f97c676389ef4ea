//! Progress of long work (issue 44): a bar on standard error while a bag
//! or a log is indexed, or (asked for) while an epoch is read, drawn by
//! indicatif: on a terminal only, silent otherwise.
//!
//! When it shows: on a terminal, once the work has taken
//! [`SHOW_AFTER`] (quick work draws nothing); with [`PROGRESS_VARIABLE`]
//! set to `1`, at once; with it set to `0`, or `ADL_QUIET` set, never.
//! Where standard error is not a terminal (a log file, a pipe, CI) it
//! never draws, whatever the variable says.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The environment variable that turns the bars off (`0`) or shows them
/// at once (`1`); unset, a bar shows once its work has taken
/// [`SHOW_AFTER`].
pub const PROGRESS_VARIABLE: &str = "ADL_PROGRESS";

/// How long work goes on before its bar shows (unless
/// [`PROGRESS_VARIABLE`] says otherwise).
pub const SHOW_AFTER: Duration = Duration::from_millis(300);

/// When bars show, as the environment says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    Never,
    AtOnce,
    After(Duration),
}

fn when() -> When {
    if std::env::var_os("ADL_QUIET").is_some() {
        return When::Never;
    }
    match std::env::var(PROGRESS_VARIABLE).as_deref().map(str::trim) {
        Ok("0") => When::Never,
        Ok("1") => When::AtOnce,
        _ => When::After(SHOW_AFTER),
    }
}

/// Whether the environment asks for the bars at once
/// ([`PROGRESS_VARIABLE`] `1`, `ADL_QUIET` unset): the loader then shows
/// its epochs' too.
pub fn asked_for() -> bool {
    when() == When::AtOnce
}

/// The progress of one piece of work: a bar of `total` units, shown on
/// standard error as the module says, cleared when the work ends (or the
/// progress is dropped).
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    began: Instant,
    when: When,
    shown: bool,
}

impl Progress {
    /// Progress through `total` bytes of `what` (`indexing flight.mcap`).
    pub fn bytes(what: impl Into<String>, total: u64) -> Progress {
        Progress::new(
            what.into(),
            total,
            "{msg} {wide_bar} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, {eta} left)",
        )
    }

    /// Progress through `total` items of `what`, counted as `unit`
    /// (`epoch 0`, `batches`).
    pub fn items(what: impl Into<String>, total: u64, unit: &str) -> Progress {
        Progress::new(
            what.into(),
            total,
            &format!("{{msg}} {{wide_bar}} {{pos}}/{{len}} {unit} ({{per_sec}}, {{eta}} left)"),
        )
    }

    /// Progress through bytes of `what` whose total is not known ahead
    /// (`indexing flight.mcap by ranged reads`): a count and a rate, no
    /// bar.
    pub fn bytes_read(what: impl Into<String>) -> Progress {
        Progress::with_length(
            what.into(),
            None,
            "{msg} {spinner} {binary_bytes} read ({binary_bytes_per_sec})",
        )
    }

    fn new(what: String, total: u64, template: &str) -> Progress {
        Progress::with_length(what, Some(total), template)
    }

    fn with_length(what: String, total: Option<u64>, template: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_message(what);
        let mut progress = Progress {
            bar,
            began: Instant::now(),
            when: when(),
            shown: false,
        };
        progress.show_if_due();
        progress
    }

    /// Whether it draws on a terminal now.
    pub fn is_shown(&self) -> bool {
        self.shown && !self.bar.is_hidden()
    }

    fn show_if_due(&mut self) {
        if self.shown {
            return;
        }
        let due = match self.when {
            When::Never => false,
            When::AtOnce => true,
            When::After(after) => self.began.elapsed() >= after,
        };
        if due {
            self.shown = true;
            // Hidden where standard error is not a terminal.
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// `done` units of the total are done.
    pub fn set(&mut self, done: u64) {
        self.show_if_due();
        self.bar.set_position(done);
    }

    /// `n` more units are done.
    pub fn add(&mut self, n: u64) {
        self.show_if_due();
        self.bar.inc(n);
    }

    /// The work ended: the bar is cleared.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if !self.bar.is_finished() {
            self.bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_a_terminal_nothing_is_drawn() {
        // The tests' standard error is captured, not a terminal.
        let mut progress = Progress::bytes("indexing test.mcap", 100);
        progress.set(50);
        std::thread::sleep(SHOW_AFTER);
        progress.add(10);
        assert!(!progress.is_shown());
        progress.finish();
    }
}
