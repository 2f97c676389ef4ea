//! Seeds of the `state` fuzz target: states of its loader
//! (`adl_fuzz::state_loader`) taken at the start, inside and at the end of
//! an epoch, written to `fuzz/corpus/state/` (run by fuzz/make_seeds.py).

use std::path::Path;

fn main() -> adl::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/state");
    std::fs::create_dir_all(&dir).map_err(|e| adl::Error::file(&dir, e))?;
    let loader = adl_fuzz::state_loader()?;
    for (epoch, batches) in [(0u64, 0usize), (3, 17), (5, 125)] {
        let mut running = loader.epoch(epoch);
        for batch in running.by_ref().take(batches) {
            batch?;
        }
        running
            .state()
            .save(dir.join(format!("seed-epoch{epoch}-after{batches}")))?;
    }
    Ok(())
}
