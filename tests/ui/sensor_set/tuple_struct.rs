use adl::prelude::*;

type Imu = Series<fn(usize) -> adl::Result<f32>>;

#[derive(SensorSet)]
struct Rig(Imu, Imu);

fn main() {}
