//! The marker traits of the rules that only the type checker can see (a
//! node's stage, a node's input type, a collate's sample type), generated
//! from the one rule table of `adl-rules` ([`adl_rules::rule_table!`]) so
//! that their `#[diagnostic::on_unimplemented]` messages are the rules'
//! own. The table, [`Rule`](adl_rules::Rule) and the checker are
//! `adl-rules`'s; [`Rule`](super::Rule) is re-exported in [`graph`](super).

/// From the rule table: a marker trait for each rule with a `diagnostic`.
macro_rules! marker_traits {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            id: $id:literal,
            message: $message:literal,
            label: $label:literal,
            help: $help:literal,
            $(diagnostic: {
                $(#[doc = $tdoc:literal])*
                trait $trait_name:ident $(<$param:ident>)? $({
                    $(#[doc = $adoc:literal])*
                    type $assoc:ident;
                })?
            },)?
        }
    )*) => {
        $($(
            $(#[doc = $tdoc])*
            #[diagnostic::on_unimplemented(message = $message, label = $label, note = $help)]
            pub trait $trait_name $(<$param>)? {
                $($(#[doc = $adoc])* type $assoc: ?Sized;)?
            }
        )?)*
    };
}

adl_rules::rule_table!(marker_traits);

impl<T, C: crate::Collate<T> + ?Sized> CollateNode<T> for C {}

impl<T, N: Takes<T> + ?Sized> TakesField<T> for N {}
