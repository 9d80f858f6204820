//! The code `#[perfbench]` generates: the function, then its registration.
//!
//! A function registers once, however many benchmarks it makes: the
//! registration's `cases` function lists them (one per type of `types`,
//! argument of `args` and count of `threads`, with their ids), and its
//! `run` function runs one of them with a `Bencher`.

use proc_macro2::{TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Type};

use crate::options::{Args, AttributeOptions};
use crate::signature::{self, Form};

/// The function as written (less a libtest `#[ignore]`, which it takes
/// over), then its registration, in an anonymous const so that its helper
/// items stay out of the caller's module.
pub(crate) fn expand(func: &ItemFn, options: &AttributeOptions) -> syn::Result<TokenStream> {
    let classified = signature::classify(&func.sig, options)?;
    let ignore_attr = |a: &&syn::Attribute| a.path().is_ident("ignore");
    let ignore = options.ignore || func.attrs.iter().any(|a| ignore_attr(&a));
    let attrs = func.attrs.iter().filter(|a| !ignore_attr(a));
    let (vis, sig, block) = (&func.vis, &func.sig, &func.block);
    let generated = Generated {
        name: &func.sig.ident,
        form: &classified.form,
        options,
        type_param: classified.type_param,
    };
    let registration = generated.registration(ignore);
    Ok(quote! {
        #(#attrs)* #vis #sig #block
        #[doc(hidden)]
        const _: () = {
            #registration
        };
    })
}

/// What the registration of one function is made from.
struct Generated<'a> {
    name: &'a Ident,
    form: &'a Form<'a>,
    options: &'a AttributeOptions,
    type_param: Option<&'a Ident>,
}

impl Generated<'_> {
    /// The `cases` and `run` functions and the inventory entry.
    fn registration(&self, ignore: bool) -> TokenStream {
        let name_str = self.name.to_string();
        let private = quote!(::perfbench::__private);
        let cases = self.cases();
        let run = self.run();
        let settings = self.settings(ignore);
        quote! {
            fn __perfbench_cases() -> ::std::vec::Vec<#private::Case> { #cases }
            #[allow(clippy::unit_arg)]
            fn __perfbench_run(b: &mut #private::Bencher<'_>, case: &#private::Case) { #run }
            #private::inventory::submit! {
                #private::Benchmark {
                    module_path: ::core::module_path!(),
                    name: #name_str,
                    file: ::core::file!(),
                    line: ::core::line!(),
                    settings: #settings,
                    cases: __perfbench_cases,
                    run: __perfbench_run,
                }
            }
        }
    }

    /// The body of `cases`: the types' names and the arguments' ids, each
    /// argument written with its `Display`, or its `Debug` where it has none,
    /// each case on every thread count of `threads`.
    fn cases(&self) -> TokenStream {
        let types = self.types().iter().map(type_name);
        let id = quote!((&&::perfbench::__private::ArgId(&arg)).arg_id());
        let args = match self.form {
            Form::WithArg {
                args: Args::List(values),
                ..
            } => {
                let ids = values
                    .iter()
                    .map(|v| quote_spanned!(v.span()=> { let arg = #v; #id }));
                quote!(::core::option::Option::Some(::std::vec![#(#ids),*]))
            }
            Form::WithArg {
                args: Args::Iterable(values),
                ..
            } => quote_spanned! {values.span()=>
                ::core::option::Option::Some(
                    ::core::iter::IntoIterator::into_iter(#values).map(|arg| #id).collect())
            },
            _ => quote!(::core::option::Option::None),
        };
        let cases = quote!(::perfbench::__private::cases(&[#(#types),*], #args));
        let cases = match &self.options.threads {
            Some(threads) => quote!(::perfbench::__private::with_threads(#cases, &[#(#threads),*])),
            None => cases,
        };
        quote! {
            #[allow(unused_imports)]
            use ::perfbench::__private::{ViaDebug as _, ViaDisplay as _};
            #cases
        }
    }

    /// The body of `run`: the case's type chosen by a `match`, then its
    /// argument.
    fn run(&self) -> TokenStream {
        let types = self.types();
        if types.is_empty() {
            return self.call(quote!(let _ = case;), None);
        }
        let arms = types.iter().enumerate().map(|(i, ty)| {
            let call = self.call(TokenStream::new(), Some(ty));
            quote!(#i => { #call })
        });
        quote! {
            match case.type_index() {
                #(#arms)*
                _ => ::core::unreachable!("no such type"),
            }
        }
    }

    /// The types of `types = [...]`, or none.
    fn types(&self) -> &[Type] {
        self.options.types.as_ref().map_or(&[], |(_, t)| t)
    }

    /// One call of the function, with `ty` as its type parameter.
    fn call(&self, prelude: TokenStream, ty: Option<&Type>) -> TokenStream {
        let name = self.name;
        let turbofish = ty.map(|ty| quote!(::<#ty>));
        match self.form {
            // A function is `Fn + Sync`: the threads of `threads` share it.
            Form::Plain => quote!(#prelude b.iter_shared(#name #turbofish)),
            Form::Bencher => quote!(#prelude #name #turbofish(b)),
            Form::WithArg {
                ty: arg_ty,
                args,
                by_ref,
            } => {
                let arg = match by_ref {
                    Some(referent) => self.borrowed_argument(arg_ty, referent, args),
                    None => self.argument(arg_ty, args),
                };
                let throughput = self.options.throughput.as_ref().map(set_throughput);
                quote! {
                    #arg
                    #throughput
                    #name #turbofish(b, arg)
                }
            }
        }
    }

    /// `let arg = …;` for the case's argument: the element of a list
    /// written out, spanned at it so that a value of the wrong type is the
    /// one an error points at, or the element of an iterable, taken by
    /// value or cloned from a reference.
    fn argument(&self, arg_ty: &Type, args: &Args) -> TokenStream {
        let annotation = self.annotation(arg_ty);
        match args {
            Args::List(values) => {
                let arms = values.iter().enumerate().map(
                    |(i, v)| quote_spanned!(v.span()=> #i => { let arg #annotation = #v; arg }),
                );
                quote! {
                    let arg #annotation = match case.arg_index() {
                        #(#arms)*
                        _ => ::core::unreachable!("no such argument"),
                    };
                }
            }
            Args::Iterable(values) => quote_spanned! {values.span()=>
                let arg #annotation = ::perfbench::__private::IntoArg::into_arg(
                    ::perfbench::__private::nth_arg(#values, case.arg_index()));
            },
        }
    }

    /// `let arg = …;` for a parameter `&U`: the case's value, kept in
    /// `value` for the call, and `arg` a reference to it (or the reference
    /// an iterable yielded), so that `size: &usize` and `&size: &usize`
    /// take `args = [64, 4096]` as Criterion's `bench_with_input` does.
    fn borrowed_argument(&self, arg_ty: &Type, referent: &Type, args: &Args) -> TokenStream {
        let annotation = self.annotation(arg_ty);
        let borrow = |v: &dyn Spanned| quote_spanned!(v.span()=> ::perfbench::__private::ArgRef::<#referent>::arg_ref(&value));
        match args {
            Args::List(values) => {
                let arms = values.iter().enumerate().map(|(i, v)| {
                    let borrow = borrow(v);
                    quote_spanned!(v.span()=> #i => { value = #v; #borrow })
                });
                quote! {
                    let value;
                    let arg #annotation = match case.arg_index() {
                        #(#arms)*
                        _ => ::core::unreachable!("no such argument"),
                    };
                }
            }
            Args::Iterable(values) => {
                let borrow = borrow(values);
                quote_spanned! {values.span()=>
                    let value = ::perfbench::__private::nth_arg(#values, case.arg_index());
                    let arg #annotation = #borrow;
                }
            }
        }
    }

    /// `: T` for the argument's type, unless it names the type parameter,
    /// which differs from case to case.
    fn annotation(&self, arg_ty: &Type) -> Option<TokenStream> {
        (!mentions(arg_ty.to_token_stream(), self.type_param)).then(|| quote!(: #arg_ty))
    }

    /// The benchmark's `Settings`: what the attribute set, `None` for the
    /// rest.
    fn settings(&self, ignore: bool) -> TokenStream {
        let o = self.options;
        let some = |v: &Option<TokenStream>| match v {
            Some(v) => quote!(::core::option::Option::Some(#v)),
            None => quote!(::core::option::Option::None),
        };
        let group = some(&o.group.as_ref().map(|g| g.to_token_stream()));
        let sample_count = some(&o.sample_count);
        let warm_up = some(&o.warm_up_time);
        let measurement = some(&o.measurement_time);
        let events = some(&o.events.as_ref().map(|e| e.to_token_stream()));
        let per_iter = some(&o.per_iter.map(|p| quote!(#p)));
        quote! {
            ::perfbench::__private::Settings {
                group: #group,
                ignore: #ignore,
                sample_count: #sample_count,
                warm_up: #warm_up,
                measurement: #measurement,
                events: #events,
                per_iter: #per_iter,
            }
        }
    }
}

/// Declares the argument `arg` as the work of one iteration, spanned at the
/// `throughput` kind so that an argument that is no amount of work points
/// the error there.
fn set_throughput(kind: &Ident) -> TokenStream {
    let variant = if kind == "bytes" {
        format_ident!("Bytes")
    } else {
        format_ident!("Elements")
    };
    quote_spanned! {kind.span()=>
        b.throughput(::perfbench::Throughput::#variant(
            ::perfbench::__private::Amount::amount(&arg)));
    }
}

/// Whether `tokens` name the identifier `param` anywhere.
fn mentions(tokens: TokenStream, param: Option<&Ident>) -> bool {
    let Some(param) = param else { return false };
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == *param,
        TokenTree::Group(g) => mentions(g.stream(), Some(param)),
        _ => false,
    })
}

/// A type as its benchmark id shows it: as written, with spaces only
/// between words and after commas (`Vec<u8>`, `&'static str`, `(u8, u16)`).
pub(crate) fn type_name(ty: &Type) -> String {
    let written = ty.to_token_stream().to_string();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let chars: Vec<char> = written.chars().collect();
    let mut name = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let between_words = before.is_some_and(word) && after.is_some_and(word);
        let after_separator = matches!(before, Some(',' | ';'));
        if c != ' ' || between_words || after_separator {
            name.push(c);
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_keep_spaces_only_between_words() {
        let name = |s: &str| type_name(&syn::parse_str(s).unwrap());
        assert_eq!(name("Vec < u8 >"), "Vec<u8>");
        assert_eq!(name("&'static str"), "&'static str");
        assert_eq!(name("Box<dyn Fn(u8) -> u8>"), "Box<dyn Fn(u8)->u8>");
        assert_eq!(name("(u8, String)"), "(u8, String)");
        assert_eq!(name("[u64; 4]"), "[u64; 4]");
    }

    #[test]
    fn generic_parameters_are_found_in_nested_types() {
        let t: Ident = syn::parse_str("T").unwrap();
        let mentions_t = |s: &str| {
            let ty: Type = syn::parse_str(s).unwrap();
            mentions(ty.to_token_stream(), Some(&t))
        };
        assert!(mentions_t("Vec<(u8, T)>"));
        assert!(!mentions_t("Vec<(u8, Tx)>"));
        assert!(!mentions(quote!(T), None));
    }
}
