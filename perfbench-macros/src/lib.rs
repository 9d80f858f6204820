//! The `#[perfbench]` attribute: registers a function as a benchmark of the
//! `perfbench` harness. Use it through `perfbench::perfbench`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Error, Expr, FnArg, ItemFn, ReturnType, Type};

/// Registers a function as a benchmark.
///
/// - `#[perfbench] fn name() -> T { … }`: the body is the routine; its return
///   value is black-boxed.
/// - `#[perfbench] fn name(b: &mut Bencher) { … }`: setup, then `b.iter(…)`.
/// - `#[perfbench(args = [a, b, …])] fn name(b: &mut Bencher, x: T) { … }`:
///   one benchmark per argument, with ids `name/a`, `name/b` (the argument's
///   `Display`).
/// - `throughput = bytes` or `throughput = elements` with `args`: each
///   argument is also the work one iteration does (an integer, or the length
///   of a string or slice).
#[proc_macro_attribute]
pub fn perfbench(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = syn::parse_macro_input!(item as ItemFn);
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| options.parse(meta));
    syn::parse::Parser::parse(parser, attr)
        .and_then(|()| expand(&func, &options))
        .unwrap_or_else(|error| {
            // Keep the function, so that the error is the only diagnostic
            // and tools still see it.
            let error = error.into_compile_error();
            quote! {
                #[allow(dead_code)]
                #func
                #error
            }
        })
        .into()
}

#[derive(Default)]
struct Options {
    /// The `args = [...]` key and its elements.
    args: Option<(Span, Vec<Expr>)>,
    /// `bytes` or `elements`.
    throughput: Option<syn::Ident>,
}

impl Options {
    fn parse(&mut self, meta: syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta.path.to_token_stream().to_string().replace(' ', "");
        let duplicate = match key.as_str() {
            "args" => self.args.is_some(),
            "throughput" => self.throughput.is_some(),
            _ => false,
        };
        if duplicate {
            return Err(meta.error(format!("duplicate key `{key}`")));
        }
        if meta.path.is_ident("args") {
            let span = meta.path.span();
            let value: Expr = meta.value()?.parse()?;
            let Expr::Array(array) = value else {
                return Err(Error::new(
                    value.span(),
                    "`args` takes a list: `args = [1, 2, 3]`",
                ));
            };
            if array.elems.is_empty() {
                return Err(Error::new(
                    array.span(),
                    "`args` needs at least one argument",
                ));
            }
            self.args = Some((span, array.elems.into_iter().collect()));
            Ok(())
        } else if meta.path.is_ident("throughput") {
            let kind: syn::Ident = meta.value()?.parse()?;
            if kind != "bytes" && kind != "elements" {
                return Err(Error::new(
                    kind.span(),
                    "`throughput` is `bytes` or `elements`",
                ));
            }
            self.throughput = Some(kind);
            Ok(())
        } else {
            Err(meta.error(format!(
                "unknown key `{key}` (expected `args` or `throughput`)"
            )))
        }
    }
}

/// Whether `ty` is `&mut Bencher` (with any path or lifetime).
fn is_bencher(ty: &Type) -> bool {
    let Type::Reference(r) = ty else { return false };
    let Type::Path(p) = &*r.elem else {
        return false;
    };
    r.mutability.is_some() && p.path.segments.last().is_some_and(|s| s.ident == "Bencher")
}

/// The type of a parameter; `None` for `self`.
fn typed(p: &FnArg) -> Option<&Type> {
    match p {
        FnArg::Typed(t) => Some(&t.ty),
        FnArg::Receiver(_) => None,
    }
}

/// One benchmark to register: how to print its argument, if it has one,
/// and the body of its run function (`b` is the `&mut Bencher`).
struct Registration {
    arg: Option<TokenStream2>,
    body: TokenStream2,
}

/// The function, kept as written, and one registration per benchmark.
fn expand(func: &ItemFn, options: &Options) -> syn::Result<TokenStream2> {
    check_signature(&func.sig)?;
    let registrations = registrations(func, options)?;
    let name = func.sig.ident.to_string();
    let items = registrations
        .iter()
        .enumerate()
        .map(|(index, r)| registration_item(&name, index, r));
    Ok(quote! {
        #func
        #[doc(hidden)]
        const _: () = {
            #(#items)*
        };
    })
}

/// Rejects the forms a benchmark cannot take, whatever its parameters.
fn check_signature(sig: &syn::Signature) -> syn::Result<()> {
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span(), "a benchmark cannot be `async`"));
    }
    if let Some(u) = &sig.unsafety {
        return Err(Error::new(
            u.span(),
            "a benchmark cannot be `unsafe`; call unsafe code from its body",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(Error::new_spanned(
            abi,
            "a benchmark is a plain Rust function, without `extern`",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(Error::new_spanned(
            &sig.generics,
            "a benchmark cannot be generic",
        ));
    }
    match sig.inputs.iter().find(|p| matches!(p, FnArg::Receiver(_))) {
        Some(r) => Err(Error::new(
            r.span(),
            "a benchmark is a free function, not a method",
        )),
        None => Ok(()),
    }
}

/// The benchmarks `func` stands for, by its form: a plain function, a
/// function of a `Bencher`, or one of a `Bencher` and an argument.
fn registrations(func: &ItemFn, options: &Options) -> syn::Result<Vec<Registration>> {
    let sig = &func.sig;
    let name = &sig.ident;
    let params: Vec<&FnArg> = sig.inputs.iter().collect();
    let registrations = match params.as_slice() {
        [] => {
            if let Some((span, _)) = &options.args {
                return Err(Error::new(
                    *span,
                    "`args` needs a parameter to receive them: `fn name(b: &mut Bencher, arg: T)`",
                ));
            }
            vec![Registration {
                arg: None,
                body: quote!(b.iter(#name)),
            }]
        }
        [first, rest @ ..] => {
            check_bencher_form(sig, first)?;
            bencher_registrations(name, rest, options)?
        }
    };
    if let (Some(kind), true) = (&options.throughput, params.len() < 2) {
        return Err(Error::new(
            kind.span(),
            "`throughput = …` takes the work per iteration from `args`; without them call `b.throughput(…)`",
        ));
    }
    Ok(registrations)
}

/// A function of a `Bencher` takes it first and returns nothing.
fn check_bencher_form(sig: &syn::Signature, first: &FnArg) -> syn::Result<()> {
    let first_ty = typed(first).expect("receivers were rejected");
    if !is_bencher(first_ty) {
        return Err(Error::new_spanned(
            first,
            "the first parameter of a benchmark must be `&mut Bencher`",
        ));
    }
    // `-> ()` returns nothing too.
    let returns_unit = |ty: &Type| matches!(ty, Type::Tuple(t) if t.elems.is_empty());
    match &sig.output {
        ReturnType::Type(_, ty) if !returns_unit(ty) => Err(Error::new_spanned(
            ty,
            "a benchmark taking a `Bencher` returns nothing; return values from the closure given to `b.iter`",
        )),
        _ => Ok(()),
    }
}

/// The registrations of a function of a `Bencher`, whose parameters after
/// it are `rest`: one, or one per value of `args`.
fn bencher_registrations(
    name: &syn::Ident,
    rest: &[&FnArg],
    options: &Options,
) -> syn::Result<Vec<Registration>> {
    match (rest, &options.args) {
        ([], None) => Ok(vec![Registration {
            arg: None,
            body: quote!(#name(b)),
        }]),
        ([], Some((span, _))) => Err(Error::new(
            *span,
            "`args` needs a second parameter to receive them: `fn name(b: &mut Bencher, arg: T)`",
        )),
        ([arg], None) => Err(Error::new_spanned(
            arg,
            "this parameter needs values: add `args = [...]` to `#[perfbench]`",
        )),
        ([arg], Some((_, values))) => {
            let ty = typed(arg).expect("receivers were rejected");
            Ok(values
                .iter()
                .map(|value| with_argument(name, ty, value, options))
                .collect())
        }
        ([_, extra, ..], _) => Err(Error::new_spanned(
            extra,
            "a benchmark takes at most two parameters: `&mut Bencher` and one argument",
        )),
    }
}

/// The registration of one value of `args`, spanned at the value so that a
/// value of the wrong type is reported there.
fn with_argument(name: &syn::Ident, ty: &Type, value: &Expr, options: &Options) -> Registration {
    let set_throughput = options.throughput.as_ref().map(|kind| {
        let variant = if kind == "bytes" {
            format_ident!("Bytes")
        } else {
            format_ident!("Elements")
        };
        quote_spanned! {kind.span()=>
            b.throughput(::perfbench::Throughput::#variant(
                ::perfbench::__private::Amount::amount(&arg)));
        }
    });
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

/// The run function, the argument's display function and the `inventory`
/// submission of one registration.
fn registration_item(name: &str, index: usize, r: &Registration) -> TokenStream2 {
    let bencher = quote!(::perfbench::__private::Bencher<'_>);
    let body = &r.body;
    let run = format_ident!("__perfbench_run_{}", index);
    let (arg_fn, arg_field) = match &r.arg {
        Some(display) => {
            let f = format_ident!("__perfbench_arg_{}", index);
            (
                quote!(fn #f() -> ::std::string::String #display),
                quote!(::core::option::Option::Some(#f)),
            )
        }
        None => (quote!(), quote!(::core::option::Option::None)),
    };
    quote! {
        #[allow(clippy::unit_arg)]
        fn #run(b: &mut #bencher) { #body }
        #arg_fn
        ::perfbench::__private::inventory::submit! {
            ::perfbench::__private::Benchmark {
                module_path: ::core::module_path!(),
                name: #name,
                arg: #arg_field,
                arg_index: #index,
                file: ::core::file!(),
                line: ::core::line!(),
                run: #run,
            }
        }
    }
}
