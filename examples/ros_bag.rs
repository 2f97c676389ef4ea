//! A ROS 2 bag — camera, IMU, pose and lidar topics — opened with adl's
//! robot-log reader, the IMU and the pose interpolated at each camera
//! frame's stamp (slerp for orientations, masked past their last message),
//! the lidar matched by nearest neighbour, and loaded in batches through a
//! `pipeline!`.
//!
//! ```text
//! cargo run --example ros_bag -- [BAG]
//! ```
//!
//! BAG defaults to `tests/data/ros/flight_mcap`, a rosbag2 folder written
//! by `tests/data/ros/make_bags.py` from a real PX4 flight log, a
//! photograph and point clouds; any rosbag2 folder, `.mcap` or ROS 1
//! `.bag` with these topics reads the same way.

use std::path::{Path, PathBuf};

use adl::files::ros::Bag;
use adl::prelude::*;

// Shared with tests/suite/plan_runs.rs, hence `pub` items in a private module.
#[path = "shared/ros_flight.rs"]
#[allow(unreachable_pub)]
mod ros_flight;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = match std::env::args().nth(1) {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ros/flight_mcap"),
    };
    let bag = Bag::open(&path)?;
    for (topic, message_type) in bag.topics() {
        println!(
            "{topic:<20} {message_type:<32} {} messages",
            bag.message_count(topic)
        );
    }
    let flight = ros_flight::open(&bag)?;
    println!("{} frames synchronized", flight.len());

    let pipeline = ros_flight::flight_pipeline();
    let loader = Loader::new(flight, pipeline)
        .batch_size(3)
        .workers(2)
        .build()?;
    for (k, batch) in loader.epoch(0).enumerate() {
        let batch = batch?;
        println!(
            "batch {k}: camera {:?}, imu valid {:?}, pose {:?} valid {:?}, lidar {:?}",
            batch.camera.shape(),
            batch.imu.valid.to_vec(),
            batch.pose.value.position.shape(),
            batch.pose.valid.to_vec(),
            batch.lidar.data.shape(),
        );
    }
    Ok(())
}
