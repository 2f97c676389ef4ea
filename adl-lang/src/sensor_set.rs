//! `#[derive(SensorSet)]`: parse, check, generate.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parse;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type, Visibility};

/// Expand `#[derive(SensorSet)]` on `input`. Errors become `compile_error!`:
/// a bad shape or struct attribute instead of the expansion, a bad
/// `#[collate(...)]` beside it (left out, so that one mistake is one
/// error).
pub fn expand(input: TokenStream) -> TokenStream {
    match syn::parse2::<DeriveInput>(input).and_then(|input| {
        parse(&input).map(|p| {
            let errors: TokenStream = p
                .reported
                .iter()
                .map(syn::Error::to_compile_error)
                .collect();
            let expansion = generate(&input, &p);
            quote!(#errors #expansion)
        })
    }) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

/// One sensor of the set: a named field.
struct Sensor {
    name: Ident,
    vis: Visibility,
    ty: Type,
    span: Span,
    /// The field's collate strategy, `#[collate(pad)]`, passed on to its
    /// field of the sample (whose `#[derive(Collate)]` reads it).
    collate: Option<TokenStream>,
}

struct Parsed {
    krate: Path,
    sample: Ident,
    derives: Vec<Path>,
    /// Attributes passed on to the sample struct, from `attr(...)`.
    attrs: Vec<syn::Meta>,
    sensors: Vec<Sensor>,
    /// Errors reported beside the expansion: a field's `#[collate(...)]`
    /// that is malformed, or that no `Collate` derive would read.
    reported: Vec<syn::Error>,
}

/// Parse and check: a struct with named fields, known attributes only.
/// An error in each `#[sensor_set(...)]` attribute is reported (the first
/// of each), with the shape's.
fn parse(input: &DeriveInput) -> syn::Result<Parsed> {
    let mut errors: Vec<syn::Error> = Vec::new();
    let mut krate: Path = syn::parse_quote!(::adl);
    let mut sample = format_ident!("{}Sample", input.ident);
    let mut derives = Vec::new();
    let mut attrs = Vec::new();
    let (mut krate_given, mut sample_given) = (false, false);
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("sensor_set"))
    {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                if std::mem::replace(&mut krate_given, true) {
                    return Err(meta.error("`crate` is given twice"));
                }
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = lit.parse()?;
                Ok(())
            } else if meta.path.is_ident("sample") {
                if std::mem::replace(&mut sample_given, true) {
                    return Err(meta.error("`sample` is given twice"));
                }
                sample = meta.value()?.parse()?;
                Ok(())
            } else if meta.path.is_ident("derive") {
                meta.parse_nested_meta(|inner| {
                    derives.push(inner.path);
                    Ok(())
                })
            } else if meta.path.is_ident("attr") {
                let content;
                syn::parenthesized!(content in meta.input);
                attrs.extend(
                    content.parse_terminated(syn::Meta::parse, syn::Token![,])?,
                );
                Ok(())
            } else {
                Err(meta.error(
                    "unknown attribute; expected `sample = Name`, `derive(...)`, `attr(...)` or `crate = \"...\"`",
                ))
            }
        });
        errors.extend(result.err());
    }
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => &fields.named,
            Fields::Unnamed(_) | Fields::Unit => {
                return Err(syn::Error::new(
                    input.ident.span(),
                    "#[derive(SensorSet)] needs a struct with named fields: each field is a sensor and names its field of the sample (sensors without field names go in a tuple: `(radar, imu)` is a sensor set)",
                ));
            }
        },
        Data::Enum(e) => {
            return Err(syn::Error::new(
                e.enum_token.span,
                "#[derive(SensorSet)] works on structs: a recording has every sensor at once, not one of them (for sensors chosen at run time, use a `Vec` of `sensor.boxed()`)",
            ));
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "#[derive(SensorSet)] works on structs, not unions",
            ));
        }
    };
    if fields.is_empty() {
        errors.push(syn::Error::new(
            input.ident.span(),
            "#[derive(SensorSet)] needs at least one sensor field",
        ));
    }
    let mut reported = Vec::new();
    if let Some(attr) = input.attrs.iter().find(|a| a.path().is_ident("collate")) {
        reported.push(syn::Error::new(
            attr.path().span(),
            "`#[collate(...)]` on a sensor set: the set is not collated, its sample is; give the sample's batch attributes as `#[sensor_set(attr(collate(...)))]`, and a field's strategy on its sensor field (`#[collate(pad)] lidar: Lidar`)",
        ));
    }
    let collated = derives_collate(&derives, &attrs);
    let sensors = fields
        .iter()
        .filter_map(|f| {
            Some(Sensor {
                name: f.ident.clone()?,
                vis: f.vis.clone(),
                ty: f.ty.clone(),
                span: f.ty.span(),
                collate: field_collate(f, collated, &mut reported),
            })
        })
        .collect();
    match errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        Some(error) => Err(error),
        None => Ok(Parsed {
            krate,
            sample,
            derives,
            attrs,
            sensors,
            reported,
        }),
    }
}

/// Whether the sample derives `Collate`: in `derive(...)`, or in an
/// `attr(derive(...))`.
fn derives_collate(derives: &[Path], attrs: &[syn::Meta]) -> bool {
    let is_collate = |path: &Path| path.segments.last().is_some_and(|s| s.ident == "Collate");
    derives.iter().any(is_collate)
        || attrs.iter().any(|meta| match meta {
            syn::Meta::List(list) if list.path.is_ident("derive") => list
                .parse_args_with(
                    syn::punctuated::Punctuated::<Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|paths| paths.iter().any(is_collate)),
            _ => false,
        })
}

/// Sensor field `f`'s collate strategy, as the attribute that gives it to
/// the sample's field: read as `#[derive(Collate)]` reads a field's (a
/// malformed, unknown or second strategy reported in `reported` and left
/// out), and reported too where the sample does not derive `Collate`
/// (`collated`), since nothing would read it there.
fn field_collate(
    f: &syn::Field,
    collated: bool,
    reported: &mut Vec<syn::Error>,
) -> Option<TokenStream> {
    let first = f.attrs.iter().find(|a| a.path().is_ident("collate"))?;
    let strategy = crate::collate::field_strategy(f, reported);
    if !collated {
        reported.push(syn::Error::new(
            first.path().span(),
            "a sensor's collate strategy is passed on to its field of the sample, which is collated field by field only where the sample derives `Collate`: add it, `#[sensor_set(derive(Collate))]`",
        ));
        return None;
    }
    strategy.attribute(first.path().span())
}

/// Generate the sample struct and the `SensorSet` impl.
fn generate(input: &DeriveInput, parsed: &Parsed) -> TokenStream {
    let projections: Vec<TokenStream> = parsed
        .sensors
        .iter()
        .map(|s| {
            let (krate, ty) = (&parsed.krate, &s.ty);
            quote_spanned!(s.span=> <#ty as #krate::Sensor>::Sample)
        })
        .collect();
    let sample_struct = sample_struct(input, parsed, &projections);
    let sensor_set = sensor_set_impl(input, parsed, &projections);
    quote! {
        #sample_struct

        #sensor_set
    }
}

/// The sample struct: one field per sensor, with the set's visibility
/// and the field's.
///
/// The sample is generic over its fields' sample types, one parameter
/// per field (`radar` -> `RadarSample`): the std derives then bound what
/// they use, and the sample type can be written
/// (`Frame<Array2<f32>, Vec<f32>>`). For a set without type parameters
/// the parameters default to the fields' sample types (`projections`),
/// so that `Frame` alone is the sample. (A field declared as a projection
/// through a closure sensor's `Fn` bound trips rustc's layout
/// computation, a type parameter does not.) Any parameter (a type, a
/// lifetime of borrowed sensors, a const) may appear in the fields'
/// sample types: such a set's sample is generic, without defaults.
fn sample_struct(input: &DeriveInput, parsed: &Parsed, projections: &[TokenStream]) -> TokenStream {
    let Parsed {
        sample,
        derives,
        attrs,
        sensors,
        ..
    } = parsed;
    let (set, vis) = (&input.ident, &input.vis);
    let params = sample_params(sensors, sample);
    let sample_decl = if input.generics.params.is_empty() {
        quote!(#sample<#(#params = #projections),*>)
    } else {
        quote!(#sample<#(#params),*>)
    };
    let names = sensors.iter().map(|s| &s.name);
    let vises = sensors.iter().map(|s| &s.vis);
    let collates = sensors.iter().map(|s| &s.collate);
    let field_docs = sensors
        .iter()
        .map(|s| format!("The sample of sensor field `{}`.", s.name));
    let sample_doc = format!(
        "One synchronized sample of [`{set}`]: one field per sensor (generated by `#[derive(SensorSet)]`)."
    );
    let derive_attr = if derives.is_empty() {
        quote!()
    } else {
        quote!(#[derive(#(#derives),*)])
    };
    quote! {
        #[doc = #sample_doc]
        #derive_attr
        #(#[#attrs])*
        #vis struct #sample_decl {
            #(
                #[doc = #field_docs]
                #collates
                #vises #names: #params,
            )*
        }
    }
}

/// The sample struct's type parameters, one per sensor (`radar` ->
/// `RadarSample`), named apart from every identifier in the sensors'
/// types and from the sample struct itself.
fn sample_params(sensors: &[Sensor], sample: &Ident) -> Vec<Ident> {
    let mut taken = idents_in(sensors.iter().map(|s| &s.ty));
    taken.push(sample.to_string());
    let mut params: Vec<Ident> = Vec::new();
    for s in sensors {
        let mut param = format_ident!("{}Sample", camel(&s.name), span = s.name.span());
        while params.contains(&param) || taken.contains(&param.to_string()) {
            param = format_ident!("{}_", param);
        }
        params.push(param);
    }
    params
}

/// `SensorSet` on the set, where every field is a sensor (the bound is
/// spanned at the field's type): its sample is the sample struct of the
/// sensors' samples (`projections`).
fn sensor_set_impl(
    input: &DeriveInput,
    parsed: &Parsed,
    projections: &[TokenStream],
) -> TokenStream {
    let Parsed {
        krate,
        sample,
        sensors,
        ..
    } = parsed;
    let set = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let bounds = sensors.iter().map(|s| {
        let ty = &s.ty;
        quote_spanned!(s.span=> #ty: #krate::Sensor)
    });
    let predicates = where_clause.into_iter().flat_map(|w| w.predicates.iter());
    let where_all = quote!(where #(#predicates,)* #(#bounds,)*);
    let names: Vec<&Ident> = sensors.iter().map(|s| &s.name).collect();
    let rows = 0..sensors.len();
    let count = sensors.len();
    let life = sensors_lifetime(&input.generics);
    quote! {
        impl #impl_generics #krate::SensorSet for #set #ty_generics #where_all {
            type Sample = #sample<#(#projections),*>;
            type Sensor<#life> = dyn #krate::AnySensor + #life where Self: #life;

            fn names(&self) -> ::std::vec::Vec<&str> {
                ::std::vec![#(#krate::Sensor::name(&self.#names)),*]
            }

            fn timestamps(&self) -> ::std::vec::Vec<(&str, &[f64])> {
                ::std::vec![#((
                    #krate::Sensor::name(&self.#names),
                    #krate::Metadata::timestamps(#krate::Sensor::metadata(&self.#names)),
                )),*]
            }

            fn lens(&self) -> ::std::vec::Vec<usize> {
                ::std::vec![#(#krate::Sensor::len(&self.#names)),*]
            }

            fn sensor(&self, name: &str) -> ::std::option::Option<&(dyn #krate::AnySensor + '_)> {
                #(
                    if #krate::Sensor::name(&self.#names) == name {
                        return ::std::option::Option::Some(#krate::__private::any_sensor(&self.#names));
                    }
                )*
                ::std::option::Option::None
            }

            fn read(
                &self,
                rows: &[usize],
                _names: &::std::sync::Arc<[::std::string::String]>,
                fetched: ::std::vec::Vec<#krate::storage::Fetched>,
            ) -> #krate::Result<Self::Sample> {
                #krate::__private::check_rows(rows, #count)?;
                let mut reads = #krate::__private::fetched_parts(fetched, #count);
                ::std::result::Result::Ok(#sample {
                    #(#names: {
                        let read = reads.next().unwrap_or_default();
                        #krate::exec::timed_sensor(#rows, || {
                            #krate::Sensor::get_fetched(&self.#names, rows[#rows], read)
                        })?
                    },)*
                })
            }
        }
    }
}

/// The sensors' lifetime in `Sensor<'_>`, named apart from the set's own.
fn sensors_lifetime(generics: &syn::Generics) -> syn::Lifetime {
    let mut life_name = "'__adl".to_owned();
    while generics
        .lifetimes()
        .any(|l| l.lifetime.to_string() == life_name)
    {
        life_name.push('_');
    }
    syn::Lifetime::new(&life_name, proc_macro2::Span::call_site())
}

/// Every identifier in `types`, as text.
fn idents_in<'a>(types: impl Iterator<Item = &'a Type>) -> Vec<String> {
    fn walk(tokens: TokenStream, out: &mut Vec<String>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => out.push(ident.to_string()),
                proc_macro2::TokenTree::Group(group) => walk(group.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for ty in types {
        walk(quote!(#ty), &mut out);
    }
    out
}

/// `radar_frame` -> `RadarFrame`: a field's name as the start of a type
/// parameter's (`_1` -> `F1`: a name cannot start with a digit).
fn camel(name: &Ident) -> String {
    let text = name.to_string();
    let text = text.strip_prefix("r#").unwrap_or(&text);
    let mut out = String::new();
    let mut upper = true;
    for c in text.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    if !out.starts_with(|c: char| c.is_alphabetic()) {
        out.insert(0, 'F');
    }
    out
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expanded(input: proc_macro2::TokenStream) -> String {
        crate::test_support::pretty(super::expand(input))
    }

    #[test]
    fn named_struct_with_sample_name_and_derives() {
        insta::assert_snapshot!(expanded(quote! {
            #[sensor_set(sample = Frame, derive(Debug, Collate), attr(collate(derive(Debug))))]
            pub struct Rig {
                pub radar: Radar,
                lidar: Window<Lidar>,
            }
        }));
    }

    #[test]
    fn borrowed_sensors_odd_field_names_and_a_taken_name() {
        insta::assert_snapshot!(expanded(quote! {
            #[sensor_set(sample = ImuSample)]
            struct Rig<'__adl, 'a> { imu: &'a Imu, _1: Window<&'__adl Gps> }
        }));
    }

    #[test]
    fn generic_struct_with_crate_path() {
        insta::assert_snapshot!(expanded(quote! {
            #[sensor_set(crate = "deps::engine")]
            struct Pair<A, B: Clone> where A: Send { a: A, b: B }
        }));
    }

    #[test]
    fn a_sensor_s_collate_strategy_goes_to_its_field_of_the_sample() {
        let text = super::expand(quote! {
            #[sensor_set(sample = Scan, derive(Debug, adl::Collate))]
            struct Scanner { #[collate(list)] radar: Radar, #[collate(pad)] lidar: Lidar, imu: Imu }
        })
        .to_string();
        assert!(!text.contains("compile_error"), "{text}");
        for field in [
            "# [collate (list)] radar : RadarSample",
            "# [collate (pad)] lidar : LidarSample",
            "\"] imu : ImuSample",
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
        // A `derive(Collate)` given through `attr(...)` reads them too.
        let text = super::expand(quote! {
            #[sensor_set(attr(derive(Collate)))]
            struct Scanner { #[collate(packed)] lidar: Lidar }
        })
        .to_string();
        assert!(text.contains("# [collate (packed)] lidar"), "{text}");
        // A program's own strategy goes on as its path.
        let text = super::expand(quote! {
            #[sensor_set(sample = Scan, derive(adl::Collate))]
            struct Scanner { #[collate(with = my::Longest)] lidar: Lidar }
        })
        .to_string();
        assert!(
            text.contains("# [collate (with = my :: Longest)] lidar"),
            "{text}"
        );
    }

    #[test]
    fn a_bad_collate_strategy_is_one_error_and_the_sample_is_still_made() {
        let text = super::expand(quote! {
            #[sensor_set(sample = Scan, derive(Collate))]
            struct Scanner {
                #[collate(stack_twice)] radar: Radar,
                #[collate(list, pad)] lidar: Lidar,
                #[collate = "pad"] imu: Imu,
            }
        })
        .to_string();
        assert_eq!(text.matches("compile_error").count(), 3, "{text}");
        assert!(text.contains("unknown collate strategy"), "{text}");
        assert!(text.contains("one collate strategy"), "{text}");
        // Left out: the radar is stacked, the lidar keeps its first.
        assert!(text.contains("\"] radar : RadarSample"), "{text}");
        assert!(text.contains("# [collate (list)] lidar"), "{text}");
        assert!(text.contains("struct Scan <"), "{text}");
        assert!(
            text.contains("impl :: adl :: SensorSet for Scanner"),
            "{text}"
        );
    }

    #[test]
    fn a_collate_strategy_without_a_collated_sample_is_an_error() {
        let text = super::expand(quote! {
            #[sensor_set(sample = Scan, derive(Debug))]
            struct Scanner { #[collate(pad)] lidar: Lidar }
        })
        .to_string();
        assert_eq!(text.matches("compile_error").count(), 1, "{text}");
        assert!(text.contains("#[sensor_set(derive(Collate))]"), "{text}");
        assert!(!text.contains("# [collate"), "{text}");
        let text = super::expand(quote! {
            #[collate(derive(Debug))]
            #[sensor_set(derive(Collate))]
            struct Scanner { lidar: Lidar }
        })
        .to_string();
        assert_eq!(text.matches("compile_error").count(), 1, "{text}");
        assert!(text.contains("attr(collate(...))"), "{text}");
    }

    #[test]
    fn other_shapes_and_attributes_are_errors() {
        insta::assert_snapshot!(expanded(quote! { struct Pair(Radar, Imu); }));
        insta::assert_snapshot!(expanded(quote! { enum Sensors { Radar(Radar) } }));
        insta::assert_snapshot!(expanded(quote! {
            #[sensor_set(name = Frame)]
            #[sensor_set(crate = "a", crate = "b")]
            struct Rig {}
        }));
    }
}
