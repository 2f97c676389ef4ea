//! `Interpolated` against NumPy's `interp` and SciPy's `Slerp`: the
//! vectors of `tests/golden/interpolation.json` (random inputs, written by
//! `tests/golden/interpolation.py`, which the Python suite reruns against
//! the installed NumPy and SciPy), and a trace that interpolates beside
//! nearest-neighbour sensors.

use adl::collate::Masked;
use adl::interpolate::Quaternion;
use adl::ndarray::{Array1, array};
use adl::prelude::*;
use adl::sync::Nearest;
use adl::{Gaps, Interpolated, Series};
use serde_json::Value;

/// The golden file's cases of `family`.
fn cases(family: &str) -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/interpolation.json"
    );
    let text = std::fs::read_to_string(path).expect("the golden file reads");
    let golden: Value = serde_json::from_str(&text).expect("the golden file parses");
    golden[family].as_array().expect("a list of cases").clone()
}

fn floats(value: &Value) -> Vec<f64> {
    (value.as_array().expect("a list").iter())
        .map(|v| v.as_f64().expect("a number"))
        .collect()
}

fn rows(value: &Value) -> Vec<Vec<f64>> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(floats)
        .collect()
}

fn max_gap(case: &Value) -> f64 {
    match &case["max_gap"] {
        Value::String(s) if s == "inf" => f64::INFINITY,
        v => v.as_f64().expect("a number"),
    }
}

/// A sensor named `id` whose sample `i` is `values[i]`.
fn sensor<T: Clone + Send + Sync + 'static>(
    id: &str,
    times: Vec<f64>,
    values: Vec<T>,
) -> impl Sensor<Sample = T> {
    Series::new(id, Timestamps::new(id, times).unwrap(), move |i: usize| {
        Ok::<T, adl::Error>(values[i].clone())
    })
}

fn assert_close(got: f64, want: f64, what: &str) {
    let tolerance = 1e-9 * want.abs().max(1.0);
    assert!((got - want).abs() <= tolerance, "{what}: {got} vs {want}");
}

#[test]
fn linear_interpolation_is_numpys_interp() {
    let cases = cases("linear");
    assert!(cases.len() >= 50);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let fp = rows(&case["fp"]);
        let x = floats(&case["x"]);
        let s = sensor(id, floats(&case["xp"]), fp.clone());
        let s = Interpolated::new(s, &x, max_gap(&case)).unwrap();
        let want = rows(&case["value"]);
        for (i, valid) in case["valid"].as_array().unwrap().iter().enumerate() {
            let Masked { value, valid: got } = s.get(i).unwrap();
            assert_eq!(got, valid.as_bool().unwrap(), "{id}[{i}]: valid");
            if got {
                for (c, (&g, &w)) in value.iter().zip(&want[i]).enumerate() {
                    assert_close(g, w, &format!("{id}[{i}][{c}]"));
                }
            } else {
                let nearest = case["nearest"][i].as_u64().unwrap() as usize;
                assert_eq!(value, fp[nearest], "{id}[{i}]: the nearest sample");
            }
        }
    }
}

#[test]
fn quaternions_interpolate_as_scipys_slerp() {
    let cases = cases("slerp");
    assert!(cases.len() >= 30);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let quats: Vec<Quaternion> = rows(&case["fp"])
            .into_iter()
            .map(|q| Quaternion::new(q[0], q[1], q[2], q[3]).unwrap())
            .collect();
        let x = floats(&case["x"]);
        let s = Interpolated::new(sensor(id, floats(&case["xp"]), quats), &x, f64::INFINITY);
        let s = s.unwrap();
        for (i, want) in case["value"].as_array().unwrap().iter().enumerate() {
            let got = s.get(i).unwrap();
            assert_eq!(got.valid, !want.is_null(), "{id}[{i}]: valid");
            if got.valid {
                // q and -q are one rotation.
                let want = floats(want);
                let dot: f64 = got
                    .value
                    .to_array()
                    .iter()
                    .zip(&want)
                    .map(|(a, b)| a * b)
                    .sum();
                assert!(
                    dot.abs() > 1.0 - 1e-9,
                    "{id}[{i}]: {:?} vs {want:?}",
                    got.value
                );
            }
        }
    }
}

/// The IMU's fields, interpolated at the camera's times beside a lidar
/// matched by nearest neighbour.
#[derive(SensorSet)]
#[sensor_set(sample = Frame, derive(Collate))]
struct Rig<C, I, L> {
    camera: C,
    imu: I,
    lidar: L,
}

#[test]
fn a_trace_interpolates_one_sensor_beside_nearest_neighbours() {
    let camera_times: Vec<f64> = (0..10).map(|i| 0.1 * i as f64 + 0.03).collect();
    let camera = sensor(
        "camera",
        camera_times.clone(),
        (0..10).collect::<Vec<u32>>(),
    );
    let imu_times: Vec<f64> = (0..91).map(|i| 0.01 * i as f64).collect();
    let imu_values: Vec<Array1<f64>> = imu_times.iter().map(|t| array![*t, 2.0 * t]).collect();
    let imu = sensor("imu", imu_times, imu_values);
    let imu = Interpolated::new(imu, &camera_times, 0.05).unwrap();
    let lidar_times: Vec<f64> = (0..20).map(|i| 0.05 * i as f64).collect();
    let lidar = sensor("lidar", lidar_times, (0..20).collect::<Vec<u32>>());
    let rig = Rig { camera, imu, lidar };
    let trace = Recording::new("run", rig, &Nearest::new("camera", 0.03).unwrap()).unwrap();
    assert_eq!(trace.len(), 10);
    for (i, &t) in camera_times.iter().enumerate().take(9) {
        let sample = trace.get(i).unwrap();
        assert_eq!(sample.camera, i as u32);
        assert!(sample.imu.valid);
        assert_close(sample.imu.value[0], t, "imu at the camera's time");
        assert_close(sample.imu.value[1], 2.0 * t, "its second field");
    }
    // 0.93 s is after the IMU's last sample, 0.90 s: masked, not dropped.
    assert!(!trace.get(9).unwrap().imu.valid);

    let batch = DefaultCollate
        .collate((0..4).map(|i| trace.get(i).unwrap()).collect())
        .unwrap();
    assert_eq!(batch.imu.value.shape(), &[4, 2]);
    assert_eq!(batch.imu.valid.len(), 4);
}

#[test]
fn a_refused_time_is_an_error_a_loader_can_skip() {
    let s = sensor("pose", vec![0.0, 1.0, 5.0], vec![0.0f64, 1.0, 5.0]);
    let s = Interpolated::new(s, &[0.5, 3.0], 1.5)
        .unwrap()
        .gaps(Gaps::Refuse);
    assert_close(s.get(0).unwrap().value, 0.5, "inside");
    let message = format!("{:#}", s.get(1).unwrap_err());
    assert!(
        message.contains("sensor `pose` interpolated at 3 s")
            && message.contains("between samples at 1 s and 5 s"),
        "{message}"
    );
}
