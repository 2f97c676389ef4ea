//! [`SharedBlock`]: a block of a worker process's shared memory
//! (adl-graph's `loader::processes::Blocks`) as NumPy arrays over its
//! bytes, not copies, and the owner that gives the block back to its
//! pool when Python frees the last of them.

use std::sync::{Arc, Mutex};

use adl_graph::loader::processes::{Block, Blocks};
use numpy::PyArray1;
use pyo3::prelude::*;

/// The owner of a block while NumPy arrays view it: gives the block back
/// to its pool when Python frees the last of them.
#[pyclass(frozen, module = "adl")]
pub(crate) struct SharedBlock {
    block: Mutex<Option<Block>>,
    home: Arc<Blocks>,
}

impl Drop for SharedBlock {
    fn drop(&mut self) {
        let block = self
            .block
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(block) = block {
            self.home.give_back(block);
        }
    }
}

/// `block` as the buffers a batch's pickle names: for each `(offset,
/// length)` (inside the block: [`Reply::buffers`] checked them), a `uint8`
/// NumPy array over those bytes of the block (no copy), all kept alive by
/// one [`SharedBlock`] that gives the block back to `home` once Python
/// frees them. A buffer outside the block is an error, the block given
/// back.
///
/// [`Reply::buffers`]: adl_graph::loader::processes::Reply::buffers
pub(crate) fn buffers<'py>(
    py: Python<'py>,
    block: Block,
    home: Arc<Blocks>,
    table: &[(usize, usize)],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let len = block.len();
    if table
        .iter()
        .any(|&(offset, n)| offset.checked_add(n).is_none_or(|end| end > len))
    {
        home.give_back(block);
        return Err(pyo3::exceptions::PyValueError::new_err(
            "a reply names a buffer outside its block",
        ));
    }
    let ptr = block.bytes().as_ptr();
    let owner = Bound::new(
        py,
        SharedBlock {
            block: Mutex::new(Some(block)),
            home,
        },
    )?
    .into_any();
    let mut out = Vec::with_capacity(table.len());
    for &(offset, n) in table {
        // SAFETY: `offset..offset + n` lies inside the block (checked
        // above); the block's mapping is owned by `owner`, which does not
        // unmap or lend it while the array (whose base it is) lives.
        let view = unsafe {
            let at = ptr.add(offset);
            ndarray::ArrayView1::from_shape_ptr(n, at)
        };
        let array = unsafe { PyArray1::borrow_from_array(&view, owner.clone()) };
        out.push(array.into_any());
    }
    Ok(out)
}
