//! Where each part of a [`Picture`] goes: blocks measured from their text
//! (a monospaced font of known width), then placed left to right on one
//! centre line, groups framing their rows, branches one above the other.
//! The canvas is the size of what is drawn, plus a margin.

use std::collections::HashMap;

use super::picture::{Block, Id, Look, Outline, Picture, Shape};

/// The width of a character of a shape's text (12 px monospace).
pub(super) const CHAR: f64 = 7.2;
/// The height of a line of a shape's text.
pub(super) const LINE: f64 = 15.0;
/// The width of a character of an arrow's label (10 px monospace).
pub(super) const LABEL_CHAR: f64 = 6.0;
/// The height of a line of the schedule above the picture.
pub(super) const HEADER_LINE: f64 = 14.0;
/// Around the picture.
pub(super) const MARGIN: f64 = 8.0;
/// Inside a group's frame, around its row.
const PAD: f64 = 8.0;
/// A group's label line, above its row.
pub(super) const GROUP_LABEL: f64 = 16.0;
/// The least room for an arrow between two blocks.
const GAP: f64 = 28.0;
/// More room where arrows fan out to branches, or in from them, to
/// curve.
const FAN: f64 = 24.0;
/// Between blocks one above the other.
const STACK_GAP: f64 = 12.0;

/// A rectangle: its top left corner and its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rect {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) w: f64,
    pub(super) h: f64,
}

impl Rect {
    /// The y of its middle.
    pub(super) fn middle(&self) -> f64 {
        self.y + self.h / 2.0
    }

    /// The x of its right side.
    pub(super) fn right(&self) -> f64 {
        self.x + self.w
    }
}

/// Where a label is written: its point (the baseline) and which end of
/// the text is there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Anchor {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) align: Align,
}

/// Which part of a label is at its anchor's x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    Start,
    Middle,
    End,
}

/// A block's size, and where its centre line is (from its top).
#[derive(Debug, Clone, Copy)]
struct Extent {
    w: f64,
    h: f64,
    centre: f64,
}

/// A placed picture: every shape's and group's rectangle, and the
/// canvas.
#[derive(Debug)]
pub(super) struct Placed {
    pub(super) shapes: HashMap<Id, Rect>,
    /// Groups, outer ones first (so that inner ones are drawn over them).
    pub(super) groups: Vec<(Look, String, Rect)>,
    /// Where each arrow's label goes (and for an arrow into or out of a
    /// branch, where it turns level), by the arrow's ends: in the room
    /// left for it between the blocks the arrow joins.
    pub(super) labels: HashMap<(Id, Id), Anchor>,
    pub(super) width: f64,
    pub(super) height: f64,
}

/// The size of `shape`, by its text.
pub(super) fn shape_size(shape: &Shape) -> (f64, f64) {
    let chars = shape
        .lines
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let lines = shape.lines.len().max(1) as f64;
    match shape.outline {
        Outline::Box => (chars * CHAR + 20.0, lines * LINE + 12.0),
        Outline::Ellipse => (chars * CHAR * 1.2 + 28.0, lines * LINE + 18.0),
        Outline::Diamond => (chars * CHAR + 36.0, lines * LINE + 24.0),
    }
}

/// The width of a label of `text` over an arrow.
pub(super) fn label_width(text: &str) -> f64 {
    text.chars().count() as f64 * LABEL_CHAR
}

/// The schedule's width above the picture.
fn header_width(header: &[String]) -> f64 {
    header
        .iter()
        .map(|l| l.chars().count() as f64 * (LABEL_CHAR * 1.1))
        .fold(0.0, f64::max)
}

/// Lays out a [`Picture`].
struct Layout<'a> {
    picture: &'a Picture,
    /// The labels of the arrows (empty for an arrow without one), by
    /// their ends.
    labels: HashMap<(Id, Id), &'a str>,
    placed: Placed,
}

/// Where everything in `picture` goes.
pub(super) fn place(picture: &Picture) -> Placed {
    let labels = picture
        .arrows
        .iter()
        .map(|a| ((a.from, a.to), a.label.as_str()))
        .collect();
    let mut layout = Layout {
        picture,
        labels,
        placed: Placed {
            shapes: HashMap::new(),
            groups: Vec::new(),
            labels: HashMap::new(),
            width: 0.0,
            height: 0.0,
        },
    };
    let row = layout.row_extent(&picture.row);
    let top = MARGIN + header_height(&picture.header);
    layout.place_row(&picture.row, MARGIN, top + row.centre);
    let mut placed = layout.placed;
    placed.width = 2.0 * MARGIN + row.w.max(header_width(&picture.header));
    placed.height = top + row.h + MARGIN;
    placed
}

/// The height of the schedule above the picture.
pub(super) fn header_height(header: &[String]) -> f64 {
    if header.is_empty() {
        0.0
    } else {
        header.len() as f64 * HEADER_LINE + 8.0
    }
}

impl Layout<'_> {
    /// The room an arrow between `from` and `to` needs for its label.
    fn gap_for(&self, from: &[Id], to: &[Id]) -> f64 {
        let mut gap = GAP;
        for &f in from {
            for &t in to {
                if let Some(label) = self.labels.get(&(f, t)) {
                    gap = gap.max(label_width(label) + 16.0);
                }
            }
        }
        gap
    }

    fn extent(&self, block: &Block) -> Extent {
        match block {
            Block::Shape(id) => {
                let (w, h) = self.picture.shapes.get(id).map_or((0.0, 0.0), shape_size);
                Extent {
                    w,
                    h,
                    centre: h / 2.0,
                }
            }
            Block::Group { label, row, .. } => {
                let inner = self.row_extent(row);
                let label_w = label.chars().count() as f64 * LABEL_CHAR * 1.1 + 8.0;
                Extent {
                    w: inner.w.max(label_w) + 2.0 * PAD,
                    h: inner.h + GROUP_LABEL + 2.0 * PAD,
                    centre: PAD + GROUP_LABEL + inner.centre,
                }
            }
            Block::Column(items) => {
                let (w, h) = self.column_size(items);
                Extent {
                    w,
                    h,
                    centre: h / 2.0,
                }
            }
            Block::Parallel {
                split,
                branches,
                merge,
            } => {
                let (split, merge) = (
                    self.extent(&Block::Shape(*split)),
                    self.extent(&Block::Shape(*merge)),
                );
                let (column_w, column_h) = self.column_size(branches);
                let (gap_in, gap_out) = self.parallel_gaps(block);
                let h = column_h.max(split.h).max(merge.h);
                Extent {
                    w: split.w + gap_in + column_w + gap_out + merge.w,
                    h,
                    centre: h / 2.0,
                }
            }
        }
    }

    /// The room for the arrows into a parallel body's branches and out of
    /// them.
    fn parallel_gaps(&self, block: &Block) -> (f64, f64) {
        let Block::Parallel {
            split,
            branches,
            merge,
        } = block
        else {
            return (GAP, GAP);
        };
        let into = branches
            .iter()
            .map(|b| self.gap_for(&[*split], &b.entries()) + FAN)
            .fold(GAP, f64::max);
        let out = branches
            .iter()
            .map(|b| self.gap_for(&b.exits(), &[*merge]) + FAN)
            .fold(GAP, f64::max);
        (into, out)
    }

    /// The size of blocks one above the other.
    fn column_size(&self, items: &[Block]) -> (f64, f64) {
        let extents: Vec<Extent> = items.iter().map(|b| self.extent(b)).collect();
        let w = extents.iter().map(|e| e.w).fold(0.0, f64::max);
        let h = extents.iter().map(|e| e.h).sum::<f64>()
            + STACK_GAP * extents.len().saturating_sub(1) as f64;
        (w, h)
    }

    /// The size of blocks in a row, on one centre line, with room for the
    /// arrows between neighbours.
    fn row_extent(&self, row: &[Block]) -> Extent {
        let extents: Vec<Extent> = row.iter().map(|b| self.extent(b)).collect();
        let above = extents.iter().map(|e| e.centre).fold(0.0, f64::max);
        let below = extents.iter().map(|e| e.h - e.centre).fold(0.0, f64::max);
        let gaps: f64 = row
            .windows(2)
            .map(|pair| self.gap_for(&pair[0].exits(), &pair[1].entries()))
            .sum();
        Extent {
            w: extents.iter().map(|e| e.w).sum::<f64>() + gaps,
            h: above + below,
            centre: above,
        }
    }

    /// Place a row starting at `x`, its centre line at `centre`; the
    /// labels of the arrows between neighbours go in the middle of the
    /// room between them.
    fn place_row(&mut self, row: &[Block], mut x: f64, centre: f64) {
        let mut gaps = Vec::new();
        for (k, block) in row.iter().enumerate() {
            let extent = self.extent(block);
            self.place(block, x, centre, extent);
            x += extent.w;
            if let Some(next) = row.get(k + 1) {
                let (exits, entries) = (block.exits(), next.entries());
                let gap = self.gap_for(&exits, &entries);
                gaps.push((exits, entries, x + gap / 2.0));
                x += gap;
            }
        }
        for (exits, entries, middle) in gaps {
            self.anchor_labels(&exits, &entries, |_, _| Anchor {
                x: middle,
                y: centre - 5.0,
                align: Align::Middle,
            });
        }
    }

    /// Anchor the label of every arrow from `from` to `to` where `at`
    /// says, given the rectangles of its ends.
    fn anchor_labels(&mut self, from: &[Id], to: &[Id], at: impl Fn(Rect, Rect) -> Anchor) {
        for &f in from {
            for &t in to {
                if self.labels.contains_key(&(f, t)) {
                    let ends = (self.placed.shapes.get(&f), self.placed.shapes.get(&t));
                    if let (Some(&a), Some(&b)) = ends {
                        self.placed.labels.insert((f, t), at(a, b));
                    }
                }
            }
        }
    }

    /// Place `block` (of `extent`) starting at `x`, its centre line at
    /// `centre`.
    fn place(&mut self, block: &Block, x: f64, centre: f64, extent: Extent) {
        let top = centre - extent.centre;
        match block {
            Block::Shape(id) => {
                self.placed.shapes.insert(
                    *id,
                    Rect {
                        x,
                        y: top,
                        w: extent.w,
                        h: extent.h,
                    },
                );
            }
            Block::Group { look, label, row } => {
                self.placed.groups.push((
                    *look,
                    label.clone(),
                    Rect {
                        x,
                        y: top,
                        w: extent.w,
                        h: extent.h,
                    },
                ));
                let inner = self.row_extent(row);
                let left = x + (extent.w - inner.w) / 2.0;
                self.place_row(row, left, centre);
            }
            Block::Column(items) => self.place_column(items, x, top, extent.w),
            Block::Parallel {
                split,
                branches,
                merge,
            } => {
                let split_extent = self.extent(&Block::Shape(*split));
                self.place(&Block::Shape(*split), x, centre, split_extent);
                let (gap_in, gap_out) = self.parallel_gaps(block);
                let (column_w, column_h) = self.column_size(branches);
                let column_x = x + split_extent.w + gap_in;
                let merge_extent = self.extent(&Block::Shape(*merge));
                let merge_x = column_x + column_w + gap_out;
                self.place(&Block::Shape(*merge), merge_x, centre, merge_extent);
                // Labels outside the branches' frames: into each by its
                // entry, out of each by its exit.
                let mut y = centre - column_h / 2.0;
                for branch in branches {
                    let e = self.extent(branch);
                    self.place(branch, column_x, y + e.centre, e);
                    y += e.h + STACK_GAP;
                    self.anchor_labels(&[*split], &branch.entries(), |_, entry| Anchor {
                        x: column_x - 6.0,
                        y: entry.middle() - 5.0,
                        align: Align::End,
                    });
                    self.anchor_labels(&branch.exits(), &[*merge], |exit, _| Anchor {
                        x: column_x + column_w + 6.0,
                        y: exit.middle() - 5.0,
                        align: Align::Start,
                    });
                }
            }
        }
    }

    /// Place blocks one above the other from `top`, each in the middle of
    /// a column of width `w` starting at `x`.
    fn place_column(&mut self, items: &[Block], x: f64, mut top: f64, w: f64) {
        for item in items {
            let e = self.extent(item);
            self.place(item, x + (w - e.w) / 2.0, top + e.centre, e);
            top += e.h + STACK_GAP;
        }
    }
}
