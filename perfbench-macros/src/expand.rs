//! The code `#[perfbench]` generates: the function, then one registration per benchmark.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, ItemFn, Type};

use crate::options::Options;
use crate::signature::{self, Form};

/// One benchmark to register.
struct Registration {
    /// The block computing the argument's id (its `Display`), if any.
    arg: Option<TokenStream>,
    /// The body of its run function, which has `b: &mut Bencher` in scope.
    body: TokenStream,
}

/// The function as written (less a libtest `#[ignore]`, which it takes
/// over), then its registrations, in an anonymous const so that their
/// helper items stay out of the caller's module.
pub(crate) fn expand(func: &ItemFn, options: &Options) -> syn::Result<TokenStream> {
    let form = signature::classify(&func.sig, options)?;
    let name = &func.sig.ident;
    let ignore_attr = |a: &&syn::Attribute| a.path().is_ident("ignore");
    let ignore = options.ignore || func.attrs.iter().any(|a| ignore_attr(&a));
    let attrs = func.attrs.iter().filter(|a| !ignore_attr(a));
    let (vis, sig, block) = (&func.vis, &func.sig, &func.block);
    let items = registrations(name, &form, options)
        .into_iter()
        .enumerate()
        .map(|(index, registration)| register(name, index, registration, ignore));
    Ok(quote! {
        #(#attrs)* #vis #sig #block
        #[doc(hidden)]
        const _: () = {
            #(#items)*
        };
    })
}

/// The benchmarks of the function: one, or one per value of `args`.
fn registrations(name: &Ident, form: &Form<'_>, options: &Options) -> Vec<Registration> {
    match form {
        Form::Plain => vec![Registration {
            arg: None,
            body: quote!(b.iter(#name)),
        }],
        Form::Bencher => vec![Registration {
            arg: None,
            body: quote!(#name(b)),
        }],
        Form::WithArg { ty, values } => values
            .iter()
            .map(|value| with_arg(name, ty, value, options.throughput.as_ref()))
            .collect(),
    }
}

/// The benchmark for one value of `args`, spanned at the value so that a
/// value of the wrong type is the one the error points at.
fn with_arg(name: &Ident, ty: &Type, value: &Expr, throughput: Option<&Ident>) -> Registration {
    let set_throughput = throughput.map(set_throughput);
    Registration {
        arg: Some(quote_spanned! {value.span()=> {
            let arg: #ty = #value;
            ::std::string::ToString::to_string(&arg)
        }}),
        body: quote_spanned! {value.span()=> {
            let arg: #ty = #value;
            #set_throughput
            #name(b, arg)
        }},
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

/// The items of one benchmark: its run function, its id function if it has
/// an argument, and its entry in the harness's inventory.
fn register(name: &Ident, index: usize, registration: Registration, ignore: bool) -> TokenStream {
    let name_str = name.to_string();
    let bencher = quote!(::perfbench::__private::Bencher<'_>);
    let run = format_ident!("__perfbench_run_{}", index);
    let body = registration.body;
    let (arg_fn, arg_field) = arg_fn(index, registration.arg);
    quote! {
        #[allow(clippy::unit_arg)]
        fn #run(b: &mut #bencher) { #body }
        #arg_fn
        ::perfbench::__private::inventory::submit! {
            ::perfbench::__private::Benchmark {
                module_path: ::core::module_path!(),
                name: #name_str,
                arg: #arg_field,
                arg_index: #index,
                file: ::core::file!(),
                line: ::core::line!(),
                ignore: #ignore,
                run: #run,
            }
        }
    }
}

/// The function giving the argument's id, and the `arg` field naming it
/// (`None` without an argument).
fn arg_fn(index: usize, display: Option<TokenStream>) -> (TokenStream, TokenStream) {
    match display {
        Some(display) => {
            let f = format_ident!("__perfbench_arg_{}", index);
            (
                quote!(fn #f() -> ::std::string::String #display),
                quote!(::core::option::Option::Some(#f)),
            )
        }
        None => (quote!(), quote!(::core::option::Option::None)),
    }
}
