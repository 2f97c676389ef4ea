// A struct form whose batch is a struct of the user's own, named after
// `=>`: generic or concrete, nested, with nodes after the merge; and a
// pipeline returned from a function, as a loader takes it.
use adl::description::Described;
use adl::pipeline::run;
use adl::{Pipeline, pipeline};
use ndarray::{Array1, Array2};

#[derive(Clone)]
struct Frame {
    camera: Array1<f32>,
    radar: Radar,
}

#[derive(Clone)]
struct Radar {
    range: f32,
    gain: f32,
}

#[derive(Debug, adl::Recycle)]
struct FrameBatch<C, R> {
    camera: C,
    radar: R,
}

#[derive(Debug, adl::Recycle)]
struct RadarBatch {
    range: Array1<f32>,
    gain: Array1<f32>,
}

fn frames() -> Described<
    impl Pipeline<Frame, Processed = FrameBatch<Array2<f32>, RadarBatch>> + Send + Sync + 'static,
> {
    pipeline! {
        Frame => FrameBatch {
            camera: { collate: default },
            radar: Radar => RadarBatch {
                range: { collate: default },
                gain: { collate: default },
            },
        }
    }
}

pub(crate) fn main() {
    let frame = Frame {
        camera: Array1::from(vec![1.0, 2.0]),
        radar: Radar {
            range: 3.0,
            gain: 0.5,
        },
    };
    let batch = run(&frames(), vec![frame.clone(), frame.clone()]).unwrap();
    assert_eq!(batch.camera.dim(), (2, 2));
    assert_eq!(batch.radar.gain.sum(), 1.0);

    let p = pipeline! {
        Frame => FrameBatch::<Array2<f32>, Array1<f32>> {
            camera: { collate: default },
            radar: { sample: |r| r.range, collate: default },
        },
        batch: |b| b.radar.sum(),
    };
    assert_eq!(run(&p, vec![frame]).unwrap(), 3.0);
}
