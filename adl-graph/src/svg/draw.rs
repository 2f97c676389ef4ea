//! The SVG text of a placed [`Picture`]: the schedule on top, the groups
//! (outer first), the arrows, the shapes, then the arrows' labels over
//! everything.

use std::fmt::Write;

use adl_core::__private::svg_escape as escape;
use adl_core::description::{Device, Stage};

use super::layout::{self, Align, GROUP_LABEL, HEADER_LINE, LINE, MARGIN, Placed, Rect};
use super::picture::{Arrow, Look, Outline, Picture, Shape};

/// The picture of `picture`, as an SVG document.
pub(super) fn svg(picture: &Picture) -> String {
    let placed = layout::place(picture);
    let (w, h) = (placed.width, placed.height);
    let mut out = String::new();
    let _ = writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="12">"#
    );
    out.push_str(concat!(
        "<defs>\n",
        r##"<marker id="arrow" markerWidth="8" markerHeight="6" refX="8" refY="3" orient="auto"><path d="M0,0 L8,3 L0,6 z" fill="#333333"/></marker>"##,
        "\n",
        r#"<marker id="arrow-red" markerWidth="8" markerHeight="6" refX="8" refY="3" orient="auto"><path d="M0,0 L8,3 L0,6 z" fill="red"/></marker>"#,
        "\n</defs>\n",
    ));
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{w:.0}" height="{h:.0}" fill="white"/>"#
    );
    for (k, line) in picture.header.iter().enumerate() {
        let y = MARGIN + HEADER_LINE * (k as f64 + 0.8);
        let _ = writeln!(
            out,
            r##"<text x="{MARGIN:.1}" y="{y:.1}" font-size="11" fill="#444444">{}</text>"##,
            escape(line)
        );
    }
    for (look, label, rect) in &placed.groups {
        group(&mut out, *look, label, rect);
    }
    for arrow in &picture.arrows {
        arrow_line(&mut out, arrow, &placed);
    }
    let mut ids: Vec<_> = placed.shapes.keys().copied().collect();
    ids.sort();
    for id in ids {
        if let (Some(shape), Some(rect)) = (picture.shapes.get(&id), placed.shapes.get(&id)) {
            draw_shape(&mut out, shape, rect);
        }
    }
    for arrow in &picture.arrows {
        arrow_label(&mut out, arrow, &placed);
    }
    out.push_str("</svg>\n");
    out
}

/// A group's frame and label, as the DOT's cluster of the same kind looks.
fn group(out: &mut String, look: Look, label: &str, r: &Rect) {
    let (fill, stroke, extra) = match look {
        Look::Read => ("#f4effa", "#9a86b8", ""),
        Look::Stage(Stage::Sample) => ("#eef4fb", "#9aa9bb", ""),
        Look::Stage(Stage::Collate) => ("#fdf6e3", "#c2b48a", ""),
        Look::Stage(Stage::Batch) => ("#eefbee", "#92b592", ""),
        Look::Device(Device::OpenCl) => ("none", "#d9822b", r#" stroke-dasharray="5,3""#),
        Look::Device(_) => ("none", "#777777", r#" stroke-dasharray="5,3""#),
        Look::Fused(_) => ("#fbe9d7", "#d9822b", ""),
        Look::Branch => ("none", "#333333", r#" stroke-width="2""#),
    };
    let _ = writeln!(
        out,
        r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="{fill}" stroke="{stroke}"{extra}/>"#,
        r.x, r.y, r.w, r.h
    );
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#333333">{}</text>"##,
        r.x + 8.0,
        r.y + GROUP_LABEL - 2.0,
        escape(label)
    );
}

/// A shape and its lines of text, with its tooltip.
fn draw_shape(out: &mut String, shape: &Shape, r: &Rect) {
    let stroke = if shape.red { "red" } else { "#333333" };
    out.push_str("<g>");
    if let Some(tip) = &shape.tooltip {
        let _ = write!(out, "<title>{}</title>", escape(tip));
    }
    let _ = match shape.outline {
        Outline::Box => write!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4" fill="white" stroke="{stroke}"/>"#,
            r.x, r.y, r.w, r.h
        ),
        Outline::Ellipse => write!(
            out,
            r#"<ellipse cx="{:.1}" cy="{:.1}" rx="{:.1}" ry="{:.1}" fill="white" stroke="{stroke}"/>"#,
            r.x + r.w / 2.0,
            r.middle(),
            r.w / 2.0,
            r.h / 2.0
        ),
        Outline::Diamond => write!(
            out,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="white" stroke="{stroke}"/>"#,
            r.x,
            r.middle(),
            r.x + r.w / 2.0,
            r.y,
            r.right(),
            r.middle(),
            r.x + r.w / 2.0,
            r.y + r.h
        ),
    };
    out.push('\n');
    let first = r.middle() - LINE * (shape.lines.len() as f64 - 1.0) / 2.0 + 4.0;
    for (k, line) in shape.lines.iter().enumerate() {
        let fill = match (shape.red, k) {
            (true, _) => "red",
            (false, 0) => "#000000",
            (false, _) => "#555555",
        };
        let size = if k == 0 { "" } else { r#" font-size="11""# };
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{fill}"{size}>{}</text>"#,
            r.x + r.w / 2.0,
            first + LINE * k as f64,
            escape(line)
        );
    }
    out.push_str("</g>\n");
}

/// The ends of `arrow`: the right middle of where it leaves, the left
/// middle of where it enters.
fn ends(arrow: &Arrow, placed: &Placed) -> Option<((f64, f64), (f64, f64))> {
    let from = placed.shapes.get(&arrow.from)?;
    let to = placed.shapes.get(&arrow.to)?;
    Some(((from.right(), from.middle()), (to.x, to.middle())))
}

/// An arrow: straight where its ends are level, else a curve that leaves
/// and enters level.
fn arrow_line(out: &mut String, arrow: &Arrow, placed: &Placed) {
    let Some(((x1, y1), (x2, y2))) = ends(arrow, placed) else {
        return;
    };
    let (stroke, marker) = if arrow.red {
        ("red", "arrow-red")
    } else {
        ("#333333", "arrow")
    };
    let curve = |(x1, y1): (f64, f64), (x2, y2): (f64, f64)| {
        let xm = (x1 + x2) / 2.0;
        format!("C{xm:.1},{y1:.1} {xm:.1},{y2:.1} {x2:.1},{y2:.1}")
    };
    // Into a branch, the arrow is level from the branch's frame on, under
    // its label; out of one, up to the frame.
    let path = match placed.labels.get(&(arrow.from, arrow.to)) {
        _ if (y1 - y2).abs() < 0.5 => format!("M{x1:.1},{y1:.1} L{x2:.1},{y2:.1}"),
        Some(at) if at.align == Align::End => format!(
            "M{x1:.1},{y1:.1} {} L{x2:.1},{y2:.1}",
            curve((x1, y1), (at.x + 6.0, y2))
        ),
        Some(at) if at.align == Align::Start => format!(
            "M{x1:.1},{y1:.1} L{:.1},{y1:.1} {}",
            at.x - 6.0,
            curve((at.x - 6.0, y1), (x2, y2))
        ),
        _ => format!("M{x1:.1},{y1:.1} {}", curve((x1, y1), (x2, y2))),
    };
    let _ = writeln!(
        out,
        r#"<path d="{path}" fill="none" stroke="{stroke}" marker-end="url(#{marker})"/>"#
    );
}

/// An arrow's label, where the layout left room for it.
fn arrow_label(out: &mut String, arrow: &Arrow, placed: &Placed) {
    let Some(at) = placed.labels.get(&(arrow.from, arrow.to)) else {
        return;
    };
    if arrow.label.is_empty() {
        return;
    }
    let anchor = match at.align {
        Align::Start => "start",
        Align::Middle => "middle",
        Align::End => "end",
    };
    let fill = if arrow.red { "red" } else { "#333333" };
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="{anchor}" font-size="10" fill="{fill}" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"#,
        at.x,
        at.y,
        escape(&arrow.label)
    );
}
