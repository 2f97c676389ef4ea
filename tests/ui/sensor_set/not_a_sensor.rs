use adl::prelude::*;

struct Radar;

#[derive(SensorSet)]
struct Rig {
    radar: Radar,
}

fn main() {}
