//! The `render` target links every built-in strategy crate. Each one exports its root module
//! under the same unmangled symbol (that is how the host finds it in a dylib); linked together
//! they clash, and the target never uses that symbol (it calls each crate's function by path),
//! so the first definition is kept.
fn main() {
    println!("cargo:rustc-link-arg-bins=-Wl,--allow-multiple-definition");
}
