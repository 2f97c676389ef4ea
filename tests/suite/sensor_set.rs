//! Recordings of sensors of different types: `#[derive(SensorSet)]`
//! structs and tuples, synchronized by any policy, read through pipelines
//! and the loader.

use adl::prelude::*;
use adl::sync::{Empty, Nearest, Next};
use adl::{AnySensor, SensorDataset, Window};
use ndarray::{Array1, Array2, Array3, array};

fn times(name: &str, n: usize, period: f64) -> Timestamps {
    Timestamps::new(name, (0..n).map(|i| i as f64 * period).collect()).unwrap()
}

/// Three sensors of three sample types; the IMU read as a window.
#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Debug, Collate))]
struct Rig<R, L, I> {
    radar: R,
    lidar: L,
    imu: I,
}

fn rig() -> Rig<
    impl Sensor<Sample = Array2<f32>>,
    impl Sensor<Sample = Vec<[f32; 3]>>,
    impl Sensor<Sample = Vec<f32>>,
> {
    let radar = Series::new("radar", times("radar", 10, 0.1), |i| {
        Ok(Array2::from_elem((2, 3), i as f32))
    });
    let lidar = Series::new("lidar", times("lidar", 20, 0.05), |i| {
        Ok(vec![[i as f32, 0.0, 1.0]; i % 3 + 1])
    });
    let imu = Series::new("imu", times("imu", 100, 0.01), |i| Ok(i as f32));
    Rig {
        radar,
        lidar,
        imu: Window::new(imu, 2, 0).unwrap().clamped(),
    }
}

#[test]
fn a_derived_set_gives_typed_samples_synchronized_by_any_policy() {
    let trace = Recording::new("run", rig(), &Nearest::new("radar", 0.02).unwrap()).unwrap();
    assert_eq!(trace.len(), 10);
    assert_eq!(trace.sensor_names(), ["radar", "lidar", "imu"]);
    let frame: Frame<Array2<f32>, Vec<[f32; 3]>, Vec<f32>> = trace.get(3).unwrap();
    assert_eq!(frame.radar, Array2::from_elem((2, 3), 3.0));
    assert_eq!(frame.lidar, vec![[6.0, 0.0, 1.0]]); // lidar sample 6 at 0.30 s
    assert_eq!(frame.imu, vec![28.0, 29.0, 30.0]); // the window ending at 0.30 s
    // Sensors by name, without their types; typed by field.
    let lidar: &dyn AnySensor = trace.sensor("lidar").unwrap();
    assert_eq!((lidar.name(), lidar.len()), ("lidar", 20));
    assert!(trace.sensor("sonar").is_err());
    // The same, through any trace (code generic over `Trace`).
    assert_eq!(Trace::any_sensor(&trace, "lidar").unwrap().len(), 20);
    assert!(Trace::any_sensor(&trace, "sonar").is_err());
    assert_eq!(trace.sensors().imu.len(), 100);

    for trace in [
        Recording::new("run", rig(), &Next::new("radar")).unwrap(),
        Recording::new("run", rig(), &Empty).unwrap(),
    ] {
        for i in 0..trace.len() {
            trace.get(i).unwrap();
        }
    }
    let aligned = Recording::aligned("run", rig());
    assert!(aligned.is_err(), "10, 20 and 100 samples are not aligned");
}

#[test]
fn derived_samples_collate_field_by_field_and_run_in_the_loader() {
    let trace = Recording::new("run", rig(), &Nearest::new("radar", 0.02).unwrap()).unwrap();
    let pipeline = pipeline! {
        Frame<Array2<f32>, Vec<[f32; 3]>, Vec<f32>> {
            radar: { collate: default },
            lidar: { sample: |points: Vec<[f32; 3]>| points.len() as i64, collate: default },
            imu: { sample: |w: Vec<f32>| Array1::from(w), collate: default },
        }
    };
    let loader = Loader::new(trace, pipeline)
        .batch_size(4)
        .workers(2)
        .build()
        .unwrap();
    let batches: Vec<_> = loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 3);
    assert_eq!(batches[0].radar.shape(), &[4, 2, 3]);
    assert_eq!(batches[0].lidar, array![1i64, 3, 2, 1]); // lidar samples 0, 2, 4, 6
    assert_eq!(batches[0].imu.shape(), &[4, 3]);
    assert_eq!(batches[0].imu.row(0), array![0.0f32, 1.0, 2.0]); // clamped at the start
}

/// A radar of ragged byte frames kept as a list, a lidar of ragged sweeps
/// padded: the strategies written on the sensors are the sample's.
#[derive(SensorSet)]
#[sensor_set(sample = Scan, derive(Debug, Collate))]
struct Scanner<R, L> {
    #[collate(list)]
    radar: R,
    #[collate(pad)]
    lidar: L,
}

#[test]
fn a_sensor_s_collate_strategy_is_its_field_s_in_the_sample() {
    let radar = Series::new("radar", times("radar", 5, 0.1), |i| {
        Ok(vec![i as u8; i + 1])
    });
    let lidar = Series::new("lidar", times("lidar", 5, 0.1), |i| {
        Ok(Array2::from_elem((i % 2 + 1, 3), i as f32))
    });
    let trace = Recording::aligned("run", Scanner { radar, lidar }).unwrap();
    let loader = Loader::new(trace, Stages::new().with_collate(DefaultCollate))
        .batch_size(2)
        .workers(2)
        .build()
        .unwrap();
    let batches: Vec<_> = loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 3);
    // The list kept as it is (stacked, ragged lists would be refused).
    assert_eq!(batches[0].radar, vec![vec![0u8], vec![1, 1]]);
    // The sweeps padded to the longest, with their lengths and mask.
    let padded = &batches[0].lidar;
    assert_eq!(padded.data.shape(), &[2, 2, 3]);
    assert_eq!(padded.lengths, array![1usize, 2]);
    assert_eq!(padded.mask, array![[true, false], [true, true]]);
    assert_eq!(padded.data[[0, 1, 0]], 0.0); // padding
    assert_eq!(padded.data[[1, 1, 2]], 1.0);
    assert_eq!(batches[2].lidar.data.shape(), &[1, 1, 3]);
}

#[test]
fn tuples_are_sensor_sets_too() {
    let radar = Series::new("radar", times("radar", 4, 0.1), |i| Ok(i as u8));
    let imu = Series::new("imu", times("imu", 40, 0.01), |i| Ok(array![i as f32, 0.5]));
    let trace =
        Recording::new("run", (radar, imu), &Nearest::new("radar", 0.001).unwrap()).unwrap();
    let (r, i): (u8, Array1<f32>) = trace.get(2).unwrap();
    assert_eq!((r, i[0]), (2, 20.0));
    let batch = adl::pipeline::run(
        &Stages::new().with_collate(DefaultCollate),
        vec![trace.get(0).unwrap(), trace.get(1).unwrap()],
    )
    .unwrap();
    assert_eq!(batch.0, array![0u8, 1]);
    assert_eq!(batch.1.shape(), &[2, 2]);
}

#[test]
fn duplicate_names_and_bad_timestamps_are_named() {
    let a = Series::new("cam", times("cam", 3, 0.1), Ok);
    let b = Series::new("cam", times("cam", 3, 0.1), |i| Ok(i as f32));
    let err = Recording::new("run", (a, b), &Empty).unwrap_err();
    assert!(
        matches!(err, Error::DuplicateSensor { ref name } if name == "cam"),
        "{err}"
    );

    let a = Series::new("cam", times("cam", 3, 0.1), Ok);
    let b = Series::new("imu", times("imu", 3, 0.1), |i| Ok(i as f32));
    let err = Recording::new("run", (a, b), &Nearest::new("gps", 0.1).unwrap()).unwrap_err();
    assert!(err.to_string().contains("`gps`"), "{err}");
}

#[test]
fn a_failing_read_names_the_sensor_index_and_cause() {
    let radar = Series::new("radar", times("radar", 3, 0.1), |i| {
        if i == 1 {
            Err(Error::read("radar frame file", i, "unexpected end of file"))
        } else {
            Ok(i)
        }
    });
    let imu = Series::new("imu", times("imu", 3, 0.1), |i| Ok(i as f32));
    let trace = Recording::aligned("run", (radar, imu)).unwrap();
    let err = trace.get(1).unwrap_err();
    let text = format!("{err:#}");
    assert!(
        text.contains("sensor `radar`")
            && text.contains("radar frame file [1]")
            && text.contains("unexpected end of file"),
        "{text}"
    );
}

#[test]
fn question_mark_works_on_user_errors_in_a_loader() {
    fn load(i: usize) -> adl::Result<u32> {
        let text = if i == 0 { "12" } else { "x" };
        let value: u32 = text.parse().map_err(adl::BoxError::from)?;
        Ok(value)
    }
    let s = Series::new("s", times("s", 2, 0.1), load);
    assert_eq!(s.get(0).unwrap(), 12);
    let err = s.get(1).unwrap_err();
    assert!(matches!(&err, Error::Load { index: 1, .. }), "{err}");
    assert!(format!("{err:#}").contains("invalid digit"), "{err:#}");
    let io: adl::Result<Vec<u8>> = std::fs::read("/nonexistent/adl-file").map_err(Error::from);
    assert!(matches!(io, Err(Error::Read { .. })));
}

fn assert_send_sync<T: Send + Sync>(_: &T) {}

#[test]
fn boxed_sensors_share_a_recording_across_threads() {
    let a = Series::new("a", times("a", 5, 0.1), |i| Ok(i as f32)).boxed();
    let b = Window::new(Series::new("b", times("b", 5, 0.1), |i| Ok(i as f32)), 1, 0)
        .unwrap()
        .map(|w| w.iter().sum::<f32>())
        .boxed();
    let trace = std::sync::Arc::new(
        Recording::new("run", vec![a, b], &Nearest::new("b", 0.01).unwrap()).unwrap(),
    );
    assert_send_sync(&trace);
    let other = std::sync::Arc::clone(&trace);
    let record = std::thread::spawn(move || other.get(0).unwrap())
        .join()
        .unwrap();
    assert_eq!((record["a"], record["b"]), (1.0, 1.0));
}

mod concrete {
    use adl::prelude::*;
    use adl::{Window, sync::Nearest};
    use ndarray::Array1;

    type Imu = Series<fn(usize) -> adl::Result<Array1<f32>>>;
    type Gps = Series<fn(usize) -> adl::Result<f64>>;

    /// A set of concrete sensor types: the sample has their sample types.
    #[derive(SensorSet)]
    #[sensor_set(sample = Fix, derive(Debug, Clone, Collate), attr(collate(derive(Debug))))]
    pub(crate) struct Flight {
        pub(crate) imu: Window<Imu>,
        pub(crate) gps: Gps,
    }

    #[test]
    fn a_concrete_set_has_a_concrete_sample() {
        let t = |n: &str, v: Vec<f64>| Timestamps::new(n, v).unwrap();
        let imu: Imu = Series::new("imu", t("imu", vec![0.0, 0.1, 0.2, 0.3]), |i| {
            Ok(Array1::from_elem(3, i as f32))
        });
        let gps: Gps = Series::new("gps", t("gps", vec![0.1, 0.3]), |i| Ok(i as f64));
        let flight = Flight {
            imu: Window::new(imu, 1, 0).unwrap(),
            gps,
        };
        let trace = Recording::new("flight", flight, &Nearest::new("gps", 0.01).unwrap()).unwrap();
        let fix: Fix = trace.get(1).unwrap();
        assert_eq!(fix.imu.len(), 2);
        assert_eq!(fix.gps, 1.0);
        let batch: FixBatch = adl::pipeline::run(
            &Stages::new().with_collate(DefaultCollate),
            vec![fix.clone(), fix],
        )
        .unwrap();
        assert_eq!(batch.gps.len(), 2);
        assert!(format!("{batch:?}").contains("gps"));
    }
}

/// The README's multimodal program, as it is written there.
mod readme {
    use adl::prelude::*;
    use adl::{Window, sync::Nearest};
    use ndarray::{Array1, Array2, Array3};

    #[derive(SensorSet)]
    #[sensor_set(sample = Frame, derive(Debug, Clone))]
    struct Rig<C, R, I> {
        camera: C,
        radar: R,
        imu: I,
    }

    #[test]
    fn the_readme_program_runs() -> adl::Result<()> {
        let camera = Series::new(
            "camera",
            Timestamps::new("camera", vec![0.0, 0.1, 0.2])?,
            |_i| Ok(Array3::<u8>::zeros((3, 16, 16))),
        );
        let radar = Series::new(
            "radar",
            Timestamps::new("radar", vec![0.0, 0.05, 0.1, 0.15, 0.2])?,
            |_i| Ok(Array2::<f32>::ones((8, 32))),
        );
        let imu = Series::new(
            "imu",
            Timestamps::new("imu", (0..21).map(|i| i as f64 * 0.01).collect())?,
            |_i| Ok(Array1::<f32>::zeros(6)),
        )
        .map(|reading| reading * 2.0);
        let imu = Window::new(imu, 9, 0)?.clamped();

        let trace = Recording::new(
            "run",
            Rig { camera, radar, imu },
            &Nearest::new("camera", 0.02)?,
        )?;
        let frame: Frame<Array3<u8>, Array2<f32>, Vec<Array1<f32>>> = trace.get(1)?;
        assert_eq!(frame.imu.len(), 10);

        let pipeline = pipeline! {
            Frame<Array3<u8>, Array2<f32>, Vec<Array1<f32>>> {
                camera: { sample: |f: Array3<u8>| f.mapv(|v| f32::from(v) / 255.0), collate: default },
                radar: { collate: default },
                imu: { collate: default },
            }
        };
        let mut samples = 0;
        for batch in Loader::new(trace, pipeline)
            .batch_size(2)
            .workers(2)
            .build()?
            .epoch(0)
        {
            let batch = batch?;
            assert_eq!(batch.camera.shape()[1..], [3, 16, 16]);
            // A list collates position by position (PyTorch's default_collate).
            assert_eq!((batch.imu.len(), batch.imu[0].shape()[1]), (10, 6));
            samples += batch.radar.shape()[0];
        }
        assert_eq!(samples, 3);
        Ok(())
    }
}

/// The radar's pipeline, built in a function of its own: its type is
/// `impl Pipeline` with only what the caller reads spelled out (no bound
/// on its transformed samples: `Pipeline::Transformed` is `Send`).
fn radar_pipeline() -> impl Pipeline<Array2<f32>, Processed = Array2<f32>> + Send + Sync + 'static {
    Stages::new()
        .with_sample(|frame: Array2<f32>| frame.sum_axis(ndarray::Axis(0)))
        .with_collate(DefaultCollate)
        .with_batch(|batch: Array2<f32>| batch * 2.0)
}

/// A batch of the rig's frames, named so that a function can return the
/// pipeline that makes it.
#[derive(Debug, adl::Recycle)]
struct RigBatch {
    radar: Array3<f32>,
    lidar: Array1<i64>,
    imu: Array2<f32>,
}

type RigFrame = Frame<Array2<f32>, Vec<[f32; 3]>, Vec<f32>>;

/// The rig's pipeline, written with `pipeline!` in a function of its own.
fn rig_pipeline() -> impl Pipeline<RigFrame, Processed = RigBatch> + Send + Sync + 'static {
    pipeline! {
        RigFrame => RigBatch {
            radar: { collate: default },
            lidar: { sample: |points: Vec<[f32; 3]>| points.len() as i64, collate: default },
            imu: { sample: |w: Vec<f32>| Array1::from(w), collate: default },
        }
    }
}

#[test]
fn a_pipeline_returned_from_a_function_runs_in_the_loader() {
    let radar = Series::new("radar", times("radar", 6, 0.1), |i| {
        Ok(Array2::from_elem((2, 3), i as f32))
    });
    let loader = Loader::new(SensorDataset::new(radar), radar_pipeline())
        .batch_size(3)
        .workers(2)
        .build()
        .unwrap();
    let batches: Vec<Array2<f32>> = loader.epoch(0).map(|b| b.unwrap().into_inner()).collect();
    assert_eq!(batches.len(), 2);
    // Sample 3: two rows of 3.0, summed, doubled.
    assert_eq!(batches[1].row(0), array![12.0f32, 12.0, 12.0]);

    let trace = Recording::new("run", rig(), &Nearest::new("radar", 0.02).unwrap()).unwrap();
    let loader = Loader::new(trace, rig_pipeline())
        .batch_size(4)
        .workers(2)
        .build()
        .unwrap();
    let batch = loader.epoch(0).next().unwrap().unwrap().into_inner();
    assert_eq!(batch.radar.shape(), &[4, 2, 3]);
    assert_eq!(batch.lidar, array![1i64, 3, 2, 1]);
    assert_eq!(batch.imu.shape(), &[4, 3]);
}
