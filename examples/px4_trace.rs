//! Read a PX4 flight log (ULog) and synchronize four of its sensors.
//!
//! ```text
//! cargo run --example px4_trace -- [LOG] [--reference NAME] [--tolerance SECONDS]
//!     [--without TOPIC]... [--dot FILE] [--svg FILE]
//! ```
//!
//! - `LOG`: a `.ulg` file; default `tests/data/px4/pixhawk4-sample-small.ulg`
//!   of this repository (found from any working directory).
//! - `--reference NAME`: the sensor whose samples are the rows of the trace;
//!   default the GPS (`vehicle_gps_position`, or `sensor_gps` in logs that
//!   name it so); in a log without a GPS, the local position, else the
//!   attitude, else the IMU. A log sensor outside the four below joins the
//!   trace.
//! - `--without TOPIC|ROLE`: leave a topic out, as if the log lacked it, or
//!   all topics of a role (`IMU`, `attitude`, `local position`, `GPS`, in
//!   any case): `--without gps` runs the example as on a log without a GPS;
//!   may be repeated.
//! - `--tolerance SECONDS`: the largest `|t_sensor - t_reference|` a row may
//!   have; default half the period of the slowest other sensor, so that only
//!   rows where some sensor has a real gap (a dropout) are left out.
//!
//! It prints every sensor of the log with its sample count and mean rate,
//! the topics that are not sensors and why, then builds a `Recording` of the
//! IMU (`sensor_combined`), attitude (`vehicle_attitude`), local position
//! (`vehicle_local_position`) and GPS, synchronized with `Nearest`, and
//! prints the number of synchronized samples and, for every sensor, the
//! largest time gap to the reference over those samples. A topic the log
//! lacks is reported and left out; without a GPS the pipeline's altitude is
//! `None`.
//!
//! Then it checks the graph of the pipeline of
//! `examples/shared/px4_pipeline.rs`, written with the DSL (`#[transform]`
//! nodes wired by `pipeline!`, one branch per part of the sample), with the
//! planner (`--dot FILE` writes that graph as Graphviz DOT, `--svg FILE` as
//! SVG drawn in pure Rust; by default both go to `target/px4_pipeline.dot`
//! and `target/px4_pipeline.svg`), and runs it over
//! the trace with the `Loader`: batches of 8, shuffled (seed 0), 2 workers,
//! 4 batches prefetched. It shows a progress bar (one step per batch; hidden
//! when stdout is not a terminal), prints the first batch, and after the
//! epoch the loader's statistics: time per node and the bottleneck.

use std::path::PathBuf;
use std::process::ExitCode;

use adl::files::px4::{Px4Log, TopicSensor};
use adl::graph::loader::Loader;
use adl::sync::Nearest;
use adl::{Dataset, Metadata, Recording, Sensor};

// Shared with tests/suite/example_graphs.rs, hence `pub` items in a private module.
#[path = "shared/px4_pipeline.rs"]
#[allow(unreachable_pub)]
mod px4_pipeline;

/// The sensors of the trace: a role and the topic names that fill it, the
/// first present wins.
const ROLES: [(&str, &[&str]); 4] = [
    ("IMU", &["sensor_combined"]),
    ("attitude", &["vehicle_attitude"]),
    ("local position", &["vehicle_local_position"]),
    ("GPS", &["vehicle_gps_position", "sensor_gps"]),
];

const USAGE: &str = "usage: px4_trace [LOG] [--reference NAME] [--tolerance SECONDS] [--without TOPIC]... [--dot FILE]\n\
     \n  LOG                 a PX4 .ulg file (default: tests/data/px4/pixhawk4-sample-small.ulg)\
     \n  --reference NAME    the sensor whose samples are the rows (default: the GPS;\
     \n                      without one, the local position, attitude or IMU)\
     \n  --without TOPIC     leave a topic out, as if the log lacked it, or a role's topics\
     \n                      (`--without gps`: as on a log without a GPS; repeatable)\
     \n  --tolerance SECONDS the largest |t_sensor - t_reference| of a row\
     \n                      (default: half the period of the slowest other sensor)\
     \n  --dot FILE          write the pipeline's graph as Graphviz DOT (default: target/px4_pipeline.dot)\
     \n  --svg FILE          write it as SVG, drawn without Graphviz (default: target/px4_pipeline.svg)";

/// The command line.
struct Args {
    log: PathBuf,
    reference: Option<String>,
    tolerance: Option<f64>,
    without: Vec<String>,
    dot: PathBuf,
    svg: PathBuf,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut log = None;
    let mut reference = None;
    let mut tolerance = None;
    let mut dot = None;
    let mut svg = None;
    let mut without = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--reference" => reference = Some(value("--reference")?),
            "--dot" => dot = Some(PathBuf::from(value("--dot")?)),
            "--svg" => svg = Some(PathBuf::from(value("--svg")?)),
            "--without" => without.push(value("--without")?),
            "--tolerance" => {
                let text = value("--tolerance")?;
                let seconds: f64 = text
                    .parse()
                    .map_err(|_| format!("--tolerance: `{text}` is not a number of seconds"))?;
                tolerance = Some(seconds);
            }
            flag if flag.starts_with("--") => {
                return Err(format!("unknown option `{flag}`\n{USAGE}"));
            }
            path if log.is_none() => log = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    let log = log.unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/px4/pixhawk4-sample-small.ulg")
    });
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    let dot = dot.unwrap_or_else(|| target.join("px4_pipeline.dot"));
    let svg = svg.unwrap_or_else(|| target.join("px4_pipeline.svg"));
    Ok(Some(Args {
        log,
        reference,
        tolerance,
        without,
        dot,
        svg,
    }))
}

fn main() -> ExitCode {
    match parse_args() {
        Ok(Some(args)) => match run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::FAILURE
            }
        },
        Ok(None) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let log = Px4Log::open(&args.log)?;
    println!("log: {}", log.path().display());
    if !log.completeness().is_complete() {
        println!(
            "  (incomplete: {:?}; samples before the break are kept)",
            log.completeness()
        );
    }

    // Every sensor, with its count and rate.
    let width = log
        .sensors()
        .iter()
        .map(|s| s.name().len())
        .max()
        .unwrap_or(0)
        .max(6);
    println!("\n{} sensors:", log.sensors().len());
    println!(
        "  {:<width$}  {:>7}  {:>9}",
        "sensor", "samples", "rate (Hz)"
    );
    for sensor in log.sensors() {
        let rate = sensor
            .framerate()
            .map_or("-".to_owned(), |hz| format!("{hz:.2}"));
        println!(
            "  {:<width$}  {:>7}  {:>9}",
            sensor.name(),
            sensor.len(),
            rate
        );
    }

    // Topics that are not sensors.
    println!("\n{} rejected topics:", log.rejected().len());
    let width = log
        .rejected()
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0);
    for (name, why) in log.rejected() {
        println!("  {name:<width$}  {why:#}");
    }

    // The four sensors of the trace (those the log has), then the reference
    // if it is another sensor of the log.
    // `--without` names a topic, or a role (`gps`) for all of its topics.
    let left_out = |topic: &str| {
        args.without.iter().any(|w| {
            w == topic
                || ROLES
                    .iter()
                    .any(|(role, topics)| role.eq_ignore_ascii_case(w) && topics.contains(&topic))
        })
    };
    let present = |topic: &str| log.sensor(topic).ok().filter(|_| !left_out(topic));
    let mut chosen: Vec<(&str, &TopicSensor)> = Vec::new();
    for (role, topics) in ROLES {
        match topics.iter().find_map(|t| present(t)) {
            Some(sensor) => chosen.push((role, sensor)),
            None if topics.iter().any(|t| left_out(t)) => {
                println!("\n{role} ({}) left out with --without", topics.join(", "));
            }
            None => println!(
                "\nno {role} topic ({}) in this log: left out",
                topics.join(" or ")
            ),
        }
    }
    // The reference: the GPS, else the first other role the log has.
    let reference = match &args.reference {
        Some(name) => name.clone(),
        None => {
            let (role, sensor) = ["GPS", "local position", "attitude", "IMU"]
                .iter()
                .find_map(|want| chosen.iter().find(|(role, _)| role == want))
                .ok_or("the log has none of the four sensors; pass --reference NAME")?;
            if *role != "GPS" {
                println!(
                    "\nno GPS: the {role} (`{}`) is the reference instead",
                    sensor.name()
                );
            }
            sensor.name().to_owned()
        }
    };
    if !chosen.iter().any(|(_, s)| s.name() == reference) {
        let sensor = present(&reference).ok_or_else(|| {
            format!("--reference `{reference}`: the log has no such sensor (or it was left out)")
        })?;
        chosen.push(("reference", sensor));
    }

    // Default tolerance: half the period of the slowest other sensor.
    let tolerance = match args.tolerance {
        Some(t) => t,
        None => chosen
            .iter()
            .filter(|(_, s)| s.name() != reference)
            .filter_map(|(_, s)| s.framerate())
            .map(|hz| 0.5 / hz)
            .fold(0.0, f64::max),
    };

    // The loader's workers need a dataset that owns its sensors (`'static`):
    // the trace holds copies of the chosen ones.
    let sensors: Vec<TopicSensor> = chosen.iter().map(|(_, s)| (*s).clone()).collect();
    let trace = Recording::new("px4", sensors, &Nearest::new(reference.clone(), tolerance)?)?;
    println!(
        "\ntrace: Nearest to `{reference}`, tolerance {tolerance:.4} s{}",
        if args.tolerance.is_none() {
            " (half the slowest other sensor's period)"
        } else {
            ""
        }
    );
    println!("synchronized samples: {}", trace.len());

    // Largest |t_sensor - t_reference| over the synchronized rows.
    let indices = trace.indices().ok_or("a Nearest trace has indices")?;
    let reference_times = log.sensor(&reference)?.metadata().timestamps();
    let reference_rows = indices
        .column(&reference)
        .ok_or("the reference has an index column")?;
    let width = chosen
        .iter()
        .map(|(_, s)| s.name().len())
        .max()
        .unwrap_or(0)
        .max(6);
    println!(
        "  {:<20}  {:<width$}  {:>7}  {:>9}  {:>12}",
        "role", "sensor", "samples", "rate (Hz)", "max |dt| (s)"
    );
    for (role, sensor) in &chosen {
        let times = sensor.metadata().timestamps();
        let rows = indices
            .column(sensor.name())
            .ok_or("every sensor has an index column")?;
        let gap = rows
            .iter()
            .zip(reference_rows)
            .map(|(&i, &r)| (times[i as usize] - reference_times[r as usize]).abs())
            .fold(0.0, f64::max);
        let rate = sensor
            .framerate()
            .map_or("-".to_owned(), |hz| format!("{hz:.2}"));
        let role = if sensor.name() == reference && *role != "reference" {
            format!("{role} (ref)")
        } else {
            role.to_string()
        };
        println!(
            "  {:<20}  {:<width$}  {:>7}  {:>9}  {:>12.6}",
            role,
            sensor.name(),
            sensor.len(),
            rate,
            gap
        );
    }

    // The synchronization drawn: each sensor's stamps on one time axis,
    // each sample's match from the reference, dropped stamps crossed out.
    let picture = args.svg.with_file_name("px4_sync.svg");
    if let Some(folder) = picture.parent() {
        std::fs::create_dir_all(folder)?;
    }
    trace
        .sync_picture(&reference, Some(tolerance))?
        .save(&picture)?;
    println!("synchronization drawn: {}", picture.display());

    run_pipeline(trace, &args.dot, &args.svg)
}

/// Check the DSL pipeline's graph with the planner, then run the pipeline
/// over the trace with the loader (batches of 8, shuffled, 2 workers), print
/// the first batch and the loader's statistics.
fn run_pipeline(
    trace: Recording<Vec<TopicSensor>>,
    dot: &std::path::Path,
    svg: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let pipeline = px4_pipeline::flight_pipeline();
    let plan = adl::graph::Planner.plan(pipeline.graph())?;
    println!(
        "\npipeline (pipeline! in examples/shared/px4_pipeline.rs): {} nodes, {} paths, \
         every composition rule holds",
        plan.transforms().count(),
        plan.paths().len()
    );
    for (path, text) in [(dot, plan.to_dot()), (svg, plan.to_svg()?)] {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, text)?;
        println!("graph written to {}", path.display());
    }

    let loader = Loader::new(trace, pipeline)
        .batch_size(8)
        .shuffle(0)
        .workers(2)
        .batches_ahead(4)
        .build()?;
    let epoch = loader.epoch(0);
    println!(
        "\nloader: {} samples, batches of 8, shuffled (seed 0), 2 workers, prefetch 4",
        loader.dataset().len()
    );
    // Hidden when stdout is not a terminal.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(epoch.batches() as u64),
        indicatif::ProgressDrawTarget::stdout(),
    );
    bar.set_style(indicatif::ProgressStyle::with_template(
        "epoch 0 {bar:40} {pos}/{len} batches {elapsed}",
    )?);
    let mut batches = 0;
    for batch in epoch {
        let batch = batch?;
        if batches == 0 {
            bar.suspend(|| {
                println!(
                    "first batch: imu.gyro {:?}, imu.accel {:?}, pose.attitude {:?}, pose.position {:?}, pose.altitude {:?}",
                    batch.imu.gyro.shape(),
                    batch.imu.accel.shape(),
                    batch.pose.attitude.shape(),
                    batch.pose.position.shape(),
                    batch.pose.altitude.as_ref().map(|a| a.shape())
                );
                println!("  accel[0] in g: {:.3}", batch.imu.accel.row(0));
                match &batch.pose.altitude {
                    Some(altitude) => println!("  altitude (m): {altitude:.1}"),
                    None => println!("  altitude: none (no GPS in the trace)"),
                }
            });
        }
        batches += 1;
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!("{batches} batches of up to 8 samples");
    println!("\n{}", loader.statistics());
    Ok(())
}
