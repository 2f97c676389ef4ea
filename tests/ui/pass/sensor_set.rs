//! `#[derive(SensorSet)]` on a struct of concrete sensor types: the sample
//! struct has the sensors' sample types, and derives what it is asked to.

use adl::prelude::*;
use adl::{Window, sync::Nearest};
use ndarray::Array1;

type Imu = Series<fn(usize) -> adl::Result<Array1<f32>>>;
type Gps = Series<fn(usize) -> adl::Result<f64>>;

#[derive(SensorSet)]
#[sensor_set(sample = Fix, derive(Debug, Clone, Collate), attr(collate(derive(Debug))))]
pub struct Flight {
    pub imu: Window<Imu>,
    pub gps: Gps,
}

pub(crate) fn main() -> adl::Result<()> {
    let t = |n: &str, v: Vec<f64>| Timestamps::new(n, v);
    let imu: Imu = Series::new("imu", t("imu", vec![0.0, 0.1, 0.2, 0.3])?, |i| {
        Ok(Array1::from_elem(3, i as f32))
    });
    let gps: Gps = Series::new("gps", t("gps", vec![0.1, 0.3])?, |i| Ok(i as f64));
    let flight = Flight {
        imu: Window::new(imu, 1, 0)?,
        gps,
    };
    let trace = Recording::new("flight", flight, &Nearest::new("gps", 0.01)?)?;
    let fix: Fix = trace.get(1)?;
    let _: (Vec<Array1<f32>>, f64) = (fix.imu.clone(), fix.gps);
    let batch: FixBatch =
        adl::pipeline::run(&Stages::new().with_collate(DefaultCollate), vec![fix])?;
    println!("{batch:?}");
    Ok(())
}
