// The batch struct's fields are the branches', each mistake at the user's
// token in rustc's words: a branch whose field the struct lacks, a field
// without a branch, a branch that gives another type than its field.
use adl::pipeline;
use ndarray::Array1;

struct Frame {
    camera: f32,
    radar: f32,
    lidar: f32,
}

struct FrameBatch {
    camera: Array1<f32>,
    radar: Array1<f32>,
}

struct CameraBatch {
    camera: Array1<f32>,
    label: Array1<i64>,
}

struct RadarBatch {
    radar: Array1<i64>,
}

fn main() {
    let _ = pipeline! {
        Frame => FrameBatch {
            camera: { collate: default },
            radar: { collate: default },
            lidar: { collate: default },
        }
    };
    let _ = pipeline! {
        Frame => CameraBatch { camera: { collate: default } }
    };
    let _ = pipeline! {
        Frame => RadarBatch { radar: { collate: default } }
    };
}
