//! [`ReadAhead`]: the engine's side of a dataset or a sensor whose reads
//! can be done ahead of time, apart from the specification's traits.
//!
//! A [`Dataset`](crate::Dataset) or a [`Sensor`](crate::Sensor) of files
//! or objects says so through one method, `read_ahead()`, which gives its
//! [`ReadAhead`] (or `None`, the default: nothing to read ahead). A loader
//! asks it once: where there is one, it runs a read stage (many reads in
//! flight, bounded in bytes) ahead of its sample stage.
//!
//! A wrapper (a pipe, a mapped sensor, a concatenation) forwards it one
//! of two ways: where its sample `i` is its source's sample `i`,
//! `read_ahead()` is its source's; otherwise it implements [`Route`],
//! saying which source samples sample `i` is made of (one, for a shuffle,
//! a skip, a concatenation; several, for a batch, a window, a pair), and
//! every hook follows from that. A [`Recording`](crate::Recording) alone
//! reads its own way: a part per sensor, named by the sensor. A wrapper
//! that did none of these would lose the read stage silently, which this
//! module's tests check wrapper by wrapper.

use crate::Result;

/// Reads done ahead of their [`get`](crate::Dataset::get): a read stage
/// calls [`fetch`](ReadAhead::fetch) (or each of
/// [`fetch_part`](ReadAhead::fetch_part)) on threads of its own, in the
/// epoch's order, and the `get` that follows only decodes.
pub trait ReadAhead {
    /// Do the I/O of sample `index` now: read its bytes (from a disk, a
    /// store) and keep them for the `get` that follows. Returns the bytes
    /// kept. A `get` without a fetch before it reads for itself, and a
    /// failed fetch keeps nothing (the `get` reads again and reports the
    /// error); an index out of range keeps nothing.
    fn fetch(&self, index: usize) -> Result<u64>;

    /// Drop what [`fetch`](ReadAhead::fetch) kept for `index` without
    /// reading it (an epoch ended before its `get`).
    fn release(&self, index: usize);

    /// How many reads sample `index`'s fetch is made of that can run at
    /// once, each by [`fetch_part`](ReadAhead::fetch_part): a
    /// [`Recording`](crate::Recording) reads each of its sensors apart, so
    /// that a read stage waits on a slow store once per sample, not once
    /// per sensor. The default: one, the whole fetch.
    fn parts(&self, index: usize) -> usize {
        let _ = index;
        1
    }

    /// Do read `part` (below [`parts`](ReadAhead::parts)) of sample
    /// `index`'s fetch, keeping its bytes as a fetch does; the parts of a
    /// sample, all done, are its fetch. The default: part 0 is the whole
    /// fetch, and any other keeps nothing.
    fn fetch_part(&self, index: usize, part: usize) -> Result<u64> {
        if part == 0 { self.fetch(index) } else { Ok(0) }
    }
}

/// A wrapper that moves samples, or makes one of several: where sample
/// `index`'s reads are done ([`Routes`]: its source's reads ahead and the
/// sample's index there, for each source sample it is made of). Every hook
/// of [`ReadAhead`] follows from it; `read_ahead()` of such a wrapper is
/// `Some(self)` where its sources read ahead (see [`routed`]).
pub trait Route {
    /// Where sample `index`'s reads are done; [`Routes::None`] where the
    /// index is out of range or its sources read nothing ahead.
    fn route(&self, index: usize) -> Routes<'_>;
}

/// Where one sample's reads are done (see [`Route`]).
pub enum Routes<'a> {
    /// Nowhere: the index is out of range, or no source reads ahead.
    None,
    /// One source sample (a shuffle, a skip, a concatenation): its reads,
    /// in its own parts.
    One(&'a dyn ReadAhead, usize),
    /// Several source samples (a batch, a window, a pair), one part each.
    Many(Vec<(&'a dyn ReadAhead, usize)>),
}

impl<'a> Routes<'a> {
    /// Sample `at` of `reader`, where there is a reader.
    pub fn one(reader: Option<&'a dyn ReadAhead>, at: usize) -> Self {
        match reader {
            Some(reader) => Routes::One(reader, at),
            None => Routes::None,
        }
    }

    /// Each sample of `indices` of `reader`, where there is a reader.
    pub fn each(
        reader: Option<&'a dyn ReadAhead>,
        indices: impl IntoIterator<Item = usize>,
    ) -> Self {
        match reader {
            Some(reader) => Routes::Many(indices.into_iter().map(|i| (reader, i)).collect()),
            None => Routes::None,
        }
    }
}

impl<R: Route + ?Sized> ReadAhead for R {
    fn fetch(&self, index: usize) -> Result<u64> {
        match self.route(index) {
            Routes::None => Ok(0),
            Routes::One(reader, at) => reader.fetch(at),
            Routes::Many(reads) => {
                let mut bytes = 0;
                for (reader, at) in reads {
                    bytes += reader.fetch(at)?;
                }
                Ok(bytes)
            }
        }
    }

    fn release(&self, index: usize) {
        match self.route(index) {
            Routes::None => {}
            Routes::One(reader, at) => reader.release(at),
            Routes::Many(reads) => reads
                .into_iter()
                .for_each(|(reader, at)| reader.release(at)),
        }
    }

    fn parts(&self, index: usize) -> usize {
        match self.route(index) {
            Routes::None => 1,
            Routes::One(reader, at) => reader.parts(at),
            Routes::Many(reads) => reads.len().max(1),
        }
    }

    fn fetch_part(&self, index: usize, part: usize) -> Result<u64> {
        match self.route(index) {
            Routes::None => Ok(0),
            Routes::One(reader, at) => reader.fetch_part(at, part),
            Routes::Many(reads) => match reads.get(part) {
                Some(&(reader, at)) => reader.fetch(at),
                None => Ok(0),
            },
        }
    }
}

/// `read_ahead()` of a [`Route`] wrapper: itself, where any of its sources
/// reads ahead (`sources_read_ahead`), else `None`.
pub fn routed<R: Route>(wrapper: &R, sources_read_ahead: bool) -> Option<&dyn ReadAhead> {
    sources_read_ahead.then_some(wrapper as &dyn ReadAhead)
}

/// Every wrapper keeps its source's reads ahead, at the right index: a
/// wrapper that forgot would lose the read stage silently.
#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::pipes::DatasetExt;
    use crate::sample::{Amount, Sampling, Seed};
    use crate::{
        Concat, Dataset, Recording, Sensor, SensorDataset, Series, Timestamps, Window, sync,
    };

    /// What a fetching source saw: `fetch` and `release` calls, by index.
    #[derive(Default)]
    struct Calls {
        fetched: Mutex<Vec<usize>>,
        released: Mutex<Vec<usize>>,
    }

    impl Calls {
        fn take(&self) -> (Vec<usize>, Vec<usize>) {
            (
                std::mem::take(&mut *self.fetched.lock().unwrap()),
                std::mem::take(&mut *self.released.lock().unwrap()),
            )
        }
    }

    impl ReadAhead for Calls {
        fn fetch(&self, index: usize) -> Result<u64> {
            self.fetched.lock().unwrap().push(index);
            Ok(1)
        }
        fn release(&self, index: usize) {
            self.released.lock().unwrap().push(index);
        }
    }

    /// A dataset of `len` samples (sample `i` is `i`) that reads ahead.
    struct Source {
        len: usize,
        calls: Arc<Calls>,
    }

    impl Dataset for Source {
        type Sample = usize;
        fn len(&self) -> usize {
            self.len
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn read_ahead(&self) -> Option<&dyn ReadAhead> {
            Some(&*self.calls)
        }
    }

    /// A sensor of `len` samples, one every 0.1 s, that reads ahead.
    struct Camera {
        name: String,
        times: Timestamps,
        calls: Arc<Calls>,
    }

    impl Sensor for Camera {
        type Sample = usize;
        type Metadata = Timestamps;
        fn name(&self) -> &str {
            &self.name
        }
        fn metadata(&self) -> &Timestamps {
            &self.times
        }
        fn get(&self, index: usize) -> Result<usize> {
            Ok(index)
        }
        fn read_ahead(&self) -> Option<&dyn ReadAhead> {
            Some(&*self.calls)
        }
    }

    fn source(len: usize) -> (Source, Arc<Calls>) {
        let calls = Arc::new(Calls::default());
        let source = Source {
            len,
            calls: Arc::clone(&calls),
        };
        (source, calls)
    }

    fn camera(name: &str, len: usize) -> (Camera, Arc<Calls>) {
        let calls = Arc::new(Calls::default());
        let times = (0..len).map(|i| i as f64 * 0.1).collect();
        let camera = Camera {
            name: name.to_owned(),
            times: Timestamps::new(name, times).unwrap(),
            calls: Arc::clone(&calls),
        };
        (camera, calls)
    }

    /// `reads` fetches sample `index` and releases it; the source sees
    /// `source_indices` fetched and released.
    #[track_caller]
    fn routes(
        what: &str,
        reads: Option<&dyn ReadAhead>,
        calls: &Calls,
        index: usize,
        source_indices: &[usize],
    ) {
        let reads = reads.unwrap_or_else(|| panic!("{what} lost its source's reads ahead"));
        let parts = reads.parts(index);
        let bytes: u64 = (0..parts)
            .map(|p| reads.fetch_part(index, p).unwrap())
            .sum();
        reads.release(index);
        let (fetched, released) = calls.take();
        assert_eq!(fetched, source_indices, "{what}: fetched");
        assert_eq!(released, source_indices, "{what}: released");
        assert_eq!(bytes, source_indices.len() as u64, "{what}: bytes");
    }

    #[test]
    fn every_dataset_wrapper_keeps_read_ahead() {
        let (s, c) = source(10);
        routes(
            "a reference",
            <&Source as Dataset>::read_ahead(&&s),
            &c,
            3,
            &[3],
        );
        let (s, c) = source(10);
        routes("a box", Box::new(s).read_ahead(), &c, 3, &[3]);
        let (s, c) = source(10);
        routes("an Arc", Arc::new(s).read_ahead(), &c, 3, &[3]);

        let (s, c) = source(10);
        routes("map", s.map(|x: usize| x + 1).read_ahead(), &c, 3, &[3]);
        let (s, c) = source(10);
        let mapped = s.try_map(|x: usize| Ok::<_, crate::Error>(x));
        routes("try_map", mapped.read_ahead(), &c, 3, &[3]);
        let (s, c) = source(10);
        routes("enumerate", s.enumerate().read_ahead(), &c, 3, &[3]);
        let (s, c) = source(10);
        let keyed = s.map(|i: usize| std::collections::BTreeMap::from([("i".to_owned(), i)]));
        routes("with_meta", keyed.with_meta(0).read_ahead(), &c, 3, &[3]);
        let (s, c) = source(10);
        routes("take", s.take(5).read_ahead(), &c, 3, &[3]);
        let (s, c) = source(10);
        routes("skip", s.skip(4).read_ahead(), &c, 3, &[7]);
        let (s, c) = source(10);
        let shuffled = s.shuffled(7);
        let at = shuffled.get(3).unwrap();
        routes("shuffled", shuffled.read_ahead(), &c, 3, &[at]);
        let (s, c) = source(10);
        let sampled = crate::sample::Sampled::new(
            s,
            Amount::Count(4),
            Sampling::LowDiscrepancy(Seed::Offset(0)),
        )
        .unwrap();
        let at = sampled.get(2).unwrap();
        routes("sampled", sampled.read_ahead(), &c, 2, &[at]);
        let (s, c) = source(10);
        routes("batch", s.batch(4).unwrap().read_ahead(), &c, 2, &[8, 9]);
        let (s, c) = source(10);
        routes(
            "window",
            s.window(3, 2).unwrap().read_ahead(),
            &c,
            1,
            &[2, 3, 4],
        );

        // Two sources: the one the sample is in, or both.
        let (a, ca) = source(4);
        let (b, cb) = source(6);
        let chained = a.chain(b).unwrap();
        routes("chain (first)", chained.read_ahead(), &ca, 1, &[1]);
        routes("chain (second)", chained.read_ahead(), &cb, 5, &[1]);
        let (a, ca) = source(4);
        let (b, cb) = source(6);
        let zipped = a.zip(b);
        let reads = zipped.read_ahead().expect("zip keeps reads ahead");
        assert_eq!(reads.parts(2), 2);
        reads.fetch(2).unwrap();
        reads.release(2);
        assert_eq!(ca.take(), (vec![2], vec![2]));
        assert_eq!(cb.take(), (vec![2], vec![2]));
        let (a, ca) = source(4);
        let (b, cb) = source(6);
        let concat = Concat::new(vec![a, b]).unwrap();
        routes("concat (first)", concat.read_ahead(), &ca, 3, &[3]);
        routes("concat (second)", concat.read_ahead(), &cb, 4, &[0]);
    }

    #[test]
    fn every_sensor_wrapper_keeps_read_ahead() {
        let (cam, c) = camera("camera", 10);
        routes("a sensor", cam.read_ahead(), &c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        routes("map", cam.map(|x| x * 2).read_ahead(), &c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        let mapped = cam.try_map(|x| Ok(x * 2));
        routes("try_map", mapped.read_ahead(), &c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        routes("boxed", cam.boxed().read_ahead(), &c, 3, &[3]);
        let (cam, c) = camera("camera", 10);
        let window = Window::new(cam, 2, 0).unwrap();
        routes("a window", window.read_ahead(), &c, 0, &[0, 1, 2]);
        let (cam, c) = camera("camera", 10);
        let stacked = Window::new(cam, 1, 0).unwrap().stacked();
        routes("a stacked window", stacked.read_ahead(), &c, 0, &[0, 1]);
        let (cam, c) = camera("camera", 10);
        let dataset = SensorDataset::new(cam);
        routes("a sensor's dataset", dataset.read_ahead(), &c, 3, &[3]);
    }

    #[test]
    fn a_recording_reads_each_fetching_sensor_as_a_part() {
        let (camera, cc) = camera("camera", 10);
        let (radar, cr) = self::camera("radar", 10);
        let plain = Series::new(
            "imu",
            Timestamps::new("imu", (0..10).map(|i| i as f64 * 0.1).collect()).unwrap(),
            Ok,
        );
        let sensors = vec![camera.boxed(), radar.boxed(), plain.boxed()];
        let nearest = sync::Nearest::new("camera", 0.01).unwrap();
        let recording = Recording::new("run", sensors, &nearest).unwrap();
        let reads = recording
            .read_ahead()
            .expect("a recording keeps reads ahead");
        assert_eq!(reads.parts(4), 3);
        reads.fetch_part(4, 0).unwrap();
        reads.fetch_part(4, 2).unwrap();
        assert_eq!(cc.take(), (vec![4], vec![]));
        assert_eq!(cr.take(), (vec![], vec![]));
        reads.release(4);
        assert_eq!(cc.take(), (vec![], vec![4]));
        assert_eq!(cr.take(), (vec![], vec![4]));

        let times = Timestamps::new("imu", vec![0.0, 0.1]).unwrap();
        let plain = Series::new("imu", times, Ok);
        let nearest = sync::Nearest::new("imu", 0.01).unwrap();
        let none = Recording::new("run", vec![plain], &nearest).unwrap();
        assert!(none.read_ahead().is_none(), "nothing to read ahead");
    }

    #[test]
    fn wrappers_of_a_source_without_read_ahead_have_none() {
        let plain = crate::InMemory::from(vec![1, 2, 3]);
        assert!(plain.read_ahead().is_none());
        let shuffled = crate::InMemory::from(vec![1, 2, 3]).shuffled(1);
        assert!(shuffled.read_ahead().is_none());
        let chained = crate::InMemory::from(vec![1])
            .chain(crate::InMemory::from(vec![2]))
            .unwrap();
        assert!(chained.read_ahead().is_none());
    }
}
