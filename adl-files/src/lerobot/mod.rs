//! LeRobot datasets (feature `lerobot`): Hugging Face's format for robot
//! learning, Parquet tables of each frame's state and action beside MP4
//! videos of each camera, read natively as an ADL dataset ([`LeRobot`]),
//! each episode a trace.
//!
//! Both formats lerobot writes are read: v3.0 (lerobot 0.4: several
//! episodes per table and per video, `meta/episodes/*.parquet`,
//! `meta/tasks.parquet`) and v2.1 (lerobot 0.3: a table and a video per
//! episode, `meta/episodes.jsonl`, `meta/tasks.jsonl`).
//!
//! The parts, each in a file of its own:
//! - `info`: `meta/info.json` ([`Info`]), and lerobot's path templates.
//! - `columns`: a Parquet table's columns ([`Column`]), read by arrow-rs.
//! - `episodes`: the episodes ([`EpisodeMeta`]) and tasks of either version.
//! - `field`: an item's values ([`Field`]) and their batches ([`FieldBatch`]).
//! - `dataset`: [`LeRobot`], the dataset, opened with [`LeRobotOptions`].

mod columns;
mod dataset;
mod episodes;
mod field;
mod info;

pub use columns::{Column, Values, read_columns};
pub use dataset::{DEFAULT_TOLERANCE_S, LeRobot, LeRobotOptions};
pub use episodes::{EpisodeMeta, EpisodeVideo};
pub use field::{Field, FieldBatch, FieldBuilder};
pub use info::{Feature, Info, Version};
