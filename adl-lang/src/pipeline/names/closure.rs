//! The closure that makes a plain function a node: what the help of
//! `plain_function_node` suggests and what the expansion puts in the
//! function's place.

use std::collections::HashSet;

use syn::visit::{self, Visit};
use syn::{Pat, Signature};

use crate::pipeline::check::text_of;

use super::unraw;

/// A plain function's parameters, to write the closure that wraps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FnShape {
    /// The function's name.
    name: String,
    /// Each parameter: a name for it (distinct, and not the function's)
    /// and its type, as written.
    params: Vec<(String, String)>,
    /// Whether the function is `unsafe` (the call goes in an `unsafe`
    /// block).
    unsafety: bool,
    /// Whether the closure compiles with its parameters' types written:
    /// no generics, no `impl`, `_` or named-lifetime types, no borrowed
    /// return, no receiver.
    typed: bool,
}

impl FnShape {
    /// The shape of a function; `None` for an `async` or variadic one
    /// (no closure calls it as a node would).
    pub(crate) fn of(sig: &Signature) -> Option<FnShape> {
        if sig.asyncness.is_some() || sig.variadic.is_some() {
            return None;
        }
        // Written as spelt (`r#match`), compared as Rust compares names.
        let name = sig.ident.to_string();
        let mut typed = sig.generics.params.is_empty();
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            let mut borrowed = Borrowed(false);
            borrowed.visit_type(ty);
            typed &= !borrowed.0;
        }
        let mut taken: HashSet<String> = HashSet::from([unraw(&sig.ident)]);
        let mut params = Vec::new();
        for (i, arg) in sig.inputs.iter().enumerate() {
            let syn::FnArg::Typed(arg) = arg else {
                return None;
            };
            let (mut candidate, mut spelt) = match &*arg.pat {
                Pat::Ident(p) if p.subpat.is_none() => (unraw(&p.ident), p.ident.to_string()),
                _ => (format!("arg{i}"), format!("arg{i}")),
            };
            while !taken.insert(candidate.clone()) {
                candidate.push('_');
                spelt = candidate.clone();
            }
            let mut unwritable = Unwritable(false);
            unwritable.visit_type(&arg.ty);
            typed &= !unwritable.0;
            params.push((spelt, text_of(&*arg.ty)));
        }
        Some(FnShape {
            name,
            params,
            unsafety: sig.unsafety.is_some(),
            typed,
        })
    }

    /// The number of parameters.
    pub(crate) fn arity(&self) -> usize {
        self.params.len()
    }

    /// Whether the closure has its parameters' types written (else rustc
    /// infers them from the node before it).
    pub(crate) fn typed(&self) -> bool {
        self.typed
    }

    /// The closure: it takes the node's one input (a tuple when the
    /// function takes more or fewer than one), e.g. `|x: i64| plain(x)`,
    /// `|(a, b): (i64, i64)| add(a, b)`; without types where they cannot
    /// be written (`|x| generic(x)`).
    pub(crate) fn closure(&self) -> String {
        let args: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
        let mut call = format!("{}({})", self.name, args.join(", "));
        if self.unsafety {
            call = format!("unsafe {{ {call} }}");
        }
        let tys: Vec<&str> = self.params.iter().map(|(_, t)| t.as_str()).collect();
        let (pattern, ty) = match (args.as_slice(), tys.as_slice()) {
            ([arg], [ty]) => (arg.to_string(), ty.to_string()),
            _ => (
                format!("({})", args.join(", ")),
                format!("({})", tys.join(", ")),
            ),
        };
        if self.typed {
            format!("|{pattern}: {ty}| {call}")
        } else {
            format!("|{pattern}| {call}")
        }
    }
}

/// Whether a type cannot be written as a closure parameter's type.
struct Unwritable(bool);

impl Visit<'_> for Unwritable {
    fn visit_type(&mut self, ty: &syn::Type) {
        match ty {
            syn::Type::ImplTrait(_) | syn::Type::Infer(_) | syn::Type::Macro(_) => self.0 = true,
            _ => visit::visit_type(self, ty),
        }
    }

    fn visit_lifetime(&mut self, lifetime: &syn::Lifetime) {
        self.0 |= lifetime.ident != "static";
    }
}

/// Whether a return type borrows (a closure cannot return a borrow of
/// its argument with elided lifetimes).
struct Borrowed(bool);

impl Visit<'_> for Borrowed {
    fn visit_type_reference(&mut self, _: &syn::TypeReference) {
        self.0 = true;
    }

    fn visit_lifetime(&mut self, _: &syn::Lifetime) {
        self.0 = true;
    }
}
