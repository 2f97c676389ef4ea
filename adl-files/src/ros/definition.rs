//! Message definitions: the `.msg` text a bag carries (MCAP's `ros2msg`
//! and `ros1msg` schemas, a ROS 1 connection's `message_definition`) or
//! adl knows built in, parsed into [`Schema`]s a decoder walks.
//!
//! A definition is one type's fields, then each type it uses, each after
//! a line of `=` and a `MSG: pkg/Type` line. Names are kept as
//! `pkg/Type` (a ROS 2 `pkg/msg/Type` loses its `msg/`); a field's type
//! without a package is of the enclosing type's package, and a ROS 1
//! `Header` is `std_msgs/Header`.

use std::collections::HashMap;
use std::sync::Arc;

use adl_core::{Error, Result};

/// Which ROS a definition is of: `byte` is signed in ROS 1, an octet in
/// ROS 2, and only ROS 1 has `time` and `duration` as primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Ros1,
    Ros2,
}

/// A field's element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Primitive {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    String,
    WString,
    /// ROS 1 `time`: `secs`, `nsecs`, both unsigned.
    Time,
    /// ROS 1 `duration`: `secs`, `nsecs`, both signed.
    Duration,
}

impl Primitive {
    /// The primitive `word` names in `dialect`, if it is one.
    fn named(word: &str, dialect: Dialect) -> Option<Primitive> {
        // A bounded string, `string<=10`, is a string.
        let word = word.split("<=").next().unwrap_or(word);
        Some(match (word, dialect) {
            ("bool", _) => Primitive::Bool,
            ("int8", _) | ("byte", Dialect::Ros1) => Primitive::I8,
            ("uint8" | "char", _) | ("byte" | "octet", Dialect::Ros2) => Primitive::U8,
            ("int16", _) => Primitive::I16,
            ("uint16", _) => Primitive::U16,
            ("int32", _) => Primitive::I32,
            ("uint32", _) => Primitive::U32,
            ("int64", _) => Primitive::I64,
            ("uint64", _) => Primitive::U64,
            ("float32", _) => Primitive::F32,
            ("float64", _) => Primitive::F64,
            ("string", _) => Primitive::String,
            ("wstring", _) => Primitive::WString,
            ("time", Dialect::Ros1) => Primitive::Time,
            ("duration", Dialect::Ros1) => Primitive::Duration,
            _ => return None,
        })
    }
}

/// A field's type: a primitive, or a message (by its index in the
/// schema's [`types`](Schema::types)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Element {
    Primitive(Primitive),
    Message(usize),
}

/// How many elements a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Count {
    /// One.
    One,
    /// Exactly this many (`float64[9]`): no length on the wire.
    Fixed(usize),
    /// A length on the wire, then that many (`uint8[]`, `int32[<=5]`).
    Sequence,
}

/// One field of a message type.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub(crate) name: Arc<str>,
    pub(crate) element: Element,
    pub(crate) count: Count,
}

/// One message type: its name and fields, in wire order.
#[derive(Debug)]
pub(crate) struct MessageType {
    pub(crate) name: Arc<str>,
    pub(crate) fields: Vec<Field>,
    /// The field names, shared by every message of this type decoded.
    pub(crate) names: Arc<[Arc<str>]>,
}

/// A message type and every type it uses, resolved: what a decoder walks.
#[derive(Debug)]
pub struct Schema {
    pub(crate) types: Vec<MessageType>,
    pub(crate) dialect: Dialect,
}

impl Schema {
    /// The root type (the message's own).
    pub(crate) fn root(&self) -> &MessageType {
        &self.types[0]
    }

    /// The name of the message type.
    pub fn name(&self) -> &str {
        &self.root().name
    }
}

/// `pkg/msg/Type` or `pkg/Type` as `pkg/Type`; a bare `Type` as of
/// `package`; ROS 1's bare `Header` as `std_msgs/Header`.
pub(crate) fn normalize(name: &str, package: &str, dialect: Dialect) -> String {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [pkg, "msg", ty] => format!("{pkg}/{ty}"),
        [pkg, ty] => format!("{pkg}/{ty}"),
        ["Header"] if dialect == Dialect::Ros1 => "std_msgs/Header".to_owned(),
        [ty] => format!("{package}/{ty}"),
        _ => name.to_owned(),
    }
}

/// A field as written, before its message type is resolved.
struct Written {
    name: String,
    element: Result<Primitive, String>,
    count: Count,
}

/// The sections of a definition text, by normalized type name: each
/// type's written fields. `root` names the first section's type.
pub(crate) struct Definitions {
    sections: HashMap<String, Vec<Written>>,
    dialect: Dialect,
}

impl Definitions {
    /// No definitions yet, of `dialect`.
    pub(crate) fn new(dialect: Dialect) -> Self {
        Definitions {
            sections: HashMap::new(),
            dialect,
        }
    }

    /// The definitions adl knows without a bag's help: the standard ROS 2
    /// packages (std_msgs, builtin_interfaces, geometry_msgs, sensor_msgs,
    /// nav_msgs, tf2_msgs, stereo_msgs, diagnostic_msgs), as of Humble.
    pub(crate) fn builtin() -> &'static Definitions {
        static BUILTIN: std::sync::OnceLock<Definitions> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(|| {
            let mut d = Definitions::new(Dialect::Ros2);
            d.add_text(None, include_str!("builtin/humble.msg"))
                .expect("the built-in definitions parse (checked by a test)");
            d
        })
    }

    /// Add the sections of `text`: its first is `root`'s (where given;
    /// otherwise every section starts with its `MSG:` line).
    pub(crate) fn add_text(&mut self, root: Option<&str>, text: &str) -> Result<()> {
        let mut name = root.map(|r| normalize(r, "", self.dialect));
        let mut lines: Vec<&str> = Vec::new();
        for line in text.lines() {
            if line.starts_with("==") && line.trim_end().chars().all(|c| c == '=') {
                self.add_section(name.take(), &lines)?;
                lines.clear();
                continue;
            }
            if let Some(rest) = line.trim_start().strip_prefix("MSG:") {
                if !lines.iter().all(|l| l.trim().is_empty()) {
                    self.add_section(name.take(), &lines)?;
                    lines.clear();
                }
                name = Some(normalize(rest.trim(), "", self.dialect));
                continue;
            }
            lines.push(line);
        }
        self.add_section(name, &lines)
    }

    /// Add one section, `name`'s fields in `lines`.
    fn add_section(&mut self, name: Option<String>, lines: &[&str]) -> Result<()> {
        let Some(name) = name else {
            if lines.iter().all(|l| strip_comment(l).trim().is_empty()) {
                return Ok(());
            }
            return Err(Error::invalid(
                "message definition",
                "a section has fields but no `MSG: pkg/Type` line naming its type",
            ));
        };
        let package = name.split('/').next().unwrap_or("").to_owned();
        let mut fields = Vec::new();
        for line in lines {
            if let Some(field) = self.field(&name, &package, line)? {
                fields.push(field);
            }
        }
        // A type given twice (a bag's own and a built-in) keeps the first.
        self.sections.entry(name).or_insert(fields);
        Ok(())
    }

    /// The field `line` declares in type `owner` (none for a blank line, a
    /// comment or a constant).
    fn field(&self, owner: &str, package: &str, line: &str) -> Result<Option<Written>> {
        let line = strip_comment(line).trim();
        if line.is_empty() {
            return Ok(None);
        }
        let bad = |why: &str| {
            Error::invalid(
                format_args!("message definition of `{owner}`"),
                format!("`{line}`: {why}"),
            )
        };
        let mut words = line.split_whitespace();
        let (Some(ty), Some(rest)) = (words.next(), words.next()) else {
            return Err(bad("a field is a type and a name"));
        };
        // `int32 X=5` and `string S = "a b"` are constants, not on the wire.
        if rest.contains('=') || words.clone().next().is_some_and(|w| w.starts_with('=')) {
            return Ok(None);
        }
        let name = rest;
        let (base, count) = match ty.find('[') {
            Some(open) => {
                let inside = ty[open + 1..]
                    .strip_suffix(']')
                    .ok_or_else(|| bad("an array type ends with `]`"))?;
                let count = if inside.is_empty() || inside.starts_with("<=") {
                    Count::Sequence
                } else {
                    Count::Fixed(
                        inside
                            .parse()
                            .map_err(|_| bad("an array's length is a number"))?,
                    )
                };
                (&ty[..open], count)
            }
            None => (ty, Count::One),
        };
        let element = match Primitive::named(base, self.dialect) {
            Some(p) => Ok(p),
            None => Err(normalize(base, package, self.dialect)),
        };
        Ok(Some(Written {
            name: name.to_owned(),
            element,
            count,
        }))
    }

    /// The schema of `name` (a type of these definitions, or of `fallback`
    /// where these lack one): every type it uses, resolved. A type defined
    /// nowhere is an error naming it and the field that uses it.
    pub(crate) fn schema(&self, name: &str, fallback: Option<&Definitions>) -> Result<Schema> {
        let root = normalize(name, "", self.dialect);
        let mut types: Vec<MessageType> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut pending = vec![root.clone()];
        index.insert(root.clone(), 0);
        types.push(MessageType {
            name: Arc::from(root.as_str()),
            fields: Vec::new(),
            names: Arc::from(Vec::new()),
        });
        let mut at = 0;
        while at < pending.len() {
            let ty = pending[at].clone();
            let written = self
                .sections
                .get(&ty)
                .or_else(|| fallback.and_then(|f| f.sections.get(&ty)))
                .ok_or_else(|| {
                    Error::invalid(
                        "message type",
                        format!(
                            "`{ty}` is not defined by the bag, nor among the built-in definitions \
                             (std_msgs, builtin_interfaces, geometry_msgs, sensor_msgs, nav_msgs, \
                             tf2_msgs, stereo_msgs, diagnostic_msgs)"
                        ),
                    )
                })?;
            let mut fields = Vec::with_capacity(written.len());
            for w in written {
                let element = match &w.element {
                    Ok(p) => Element::Primitive(*p),
                    Err(used) => {
                        let next = pending.len();
                        let id = *index.entry(used.clone()).or_insert_with(|| {
                            pending.push(used.clone());
                            next
                        });
                        if id == next {
                            types.push(MessageType {
                                name: Arc::from(used.as_str()),
                                fields: Vec::new(),
                                names: Arc::from(Vec::new()),
                            });
                        }
                        Element::Message(id)
                    }
                };
                fields.push(Field {
                    name: Arc::from(w.name.as_str()),
                    element,
                    count: w.count,
                });
            }
            if fields.is_empty() && self.dialect == Dialect::Ros2 {
                // An empty ROS 2 struct is one byte on the wire, under the
                // name the ROS 2 IDL (and rosbags) give it.
                fields.push(Field {
                    name: Arc::from("structure_needs_at_least_one_member"),
                    element: Element::Primitive(Primitive::U8),
                    count: Count::One,
                });
            }
            types[at].names = fields.iter().map(|f| Arc::clone(&f.name)).collect();
            types[at].fields = fields;
            at += 1;
        }
        Ok(Schema {
            types,
            dialect: self.dialect,
        })
    }
}

/// `line` without its comment (`#` to the end, outside a string constant).
fn strip_comment(line: &str) -> &str {
    let mut quoted = None;
    for (i, c) in line.char_indices() {
        match (c, quoted) {
            ('"' | '\'', None) => quoted = Some(c),
            (q, Some(open)) if q == open => quoted = None,
            ('#', None) => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_definitions_resolve_every_type() {
        let builtin = Definitions::builtin();
        assert!(builtin.sections.len() >= 90);
        for name in builtin.sections.keys() {
            builtin.schema(name, None).unwrap();
        }
        let imu = builtin.schema("sensor_msgs/msg/Imu", None).unwrap();
        let names: Vec<&str> = imu.root().names.iter().map(|n| &**n).collect();
        assert_eq!(names[..2], ["header", "orientation"]);
        assert_eq!(imu.root().fields[2].count, Count::Fixed(9));
    }

    #[test]
    fn a_ros1_text_with_its_dependencies_parses() {
        let text = "Header header  # stamp\nbyte b\nchar c\ntime t\nint32 X=5\nstring S = \"a # b\"\nfloat32[] values\n\
                    ================================================================================\n\
                    MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
        let mut d = Definitions::new(Dialect::Ros1);
        d.add_text(Some("pkg/Thing"), text).unwrap();
        let s = d.schema("pkg/Thing", None).unwrap();
        let root = s.root();
        let names: Vec<&str> = root.names.iter().map(|n| &**n).collect();
        assert_eq!(names, ["header", "b", "c", "t", "values"]);
        assert_eq!(root.fields[1].element, Element::Primitive(Primitive::I8));
        assert_eq!(root.fields[2].element, Element::Primitive(Primitive::U8));
        assert_eq!(root.fields[3].element, Element::Primitive(Primitive::Time));
        assert_eq!(root.fields[4].count, Count::Sequence);
        assert_eq!(&*s.types[1].name, "std_msgs/Header");
    }

    #[test]
    fn an_unknown_type_is_an_error_naming_it() {
        let mut d = Definitions::new(Dialect::Ros2);
        d.add_text(Some("pkg/msg/A"), "pkg/Missing m\n").unwrap();
        let err = d.schema("pkg/A", None).unwrap_err();
        assert!(err.to_string().contains("`pkg/Missing`"), "{err}");
        let mut d = Definitions::new(Dialect::Ros2);
        assert!(d.add_text(Some("pkg/A"), "int32[x] bad\n").is_err());
    }
}
