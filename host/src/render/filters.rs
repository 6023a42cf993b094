//! The filters the host registers with every set of templates, beyond tera's own. There is one,
//! `pad`: `{{ name | pad(width=30, min=1) }}` appends spaces up to `width` characters, and at
//! least `min` (default 0), so that templates can lay out columns of plain text. Neither may be
//! more than [`MAX_PAD_WIDTH`].

use tera::{Kwargs, State, Tera, TeraResult, Value};

/// The largest `width` and `min` of `pad`: a template asking for more is an error, not a
/// gigabyte of spaces.
pub const MAX_PAD_WIDTH: usize = 10_000;

/// Registers the host's filters with `tera`.
pub(super) fn register(tera: &mut Tera) {
    tera.register_filter("pad", pad);
}

/// `pad(width=N, min=M)`: spaces appended up to `width` characters, at least `min` of them.
/// Numbers are padded as printed.
fn pad(value: Value, kwargs: Kwargs, _: &State) -> TeraResult<String> {
    let printed;
    let text = match value.as_str() {
        Some(text) => text,
        None => {
            printed = value.to_string();
            &printed
        }
    };
    let width: u64 = kwargs.must_get("width")?;
    let min: u64 = kwargs.get("min")?.unwrap_or(0);
    for (name, value) in [("width", width), ("min", min)] {
        if value > MAX_PAD_WIDTH as u64 {
            return Err(tera::Error::message(format!(
                "pad: {name} {value} is more than the maximum of {MAX_PAD_WIDTH}"
            )));
        }
    }
    let (width, min) = (width as usize, min as usize);
    let spaces = width.saturating_sub(text.chars().count()).max(min);
    let mut out = String::with_capacity(text.len() + spaces);
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', spaces));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use ptc_plugin_api::Section;

    use crate::render::templates::Templates;

    #[test]
    fn pad_pads_to_width_with_a_minimum() {
        let source = "[{{ a | pad(width=5) }}][{{ b | pad(width=3, min=1) }}]\n";
        let t = Templates::load("s", &[("t".into(), source.into())], |_| Vec::new()).unwrap();
        let section = Section::new("t").with("a", "ab").with("b", "abcd");
        assert_eq!(t.render_section(&section).unwrap(), "[ab   ][abcd ]");
    }

    #[test]
    fn pad_refuses_a_width_over_its_maximum() {
        for source in [
            "{{ \"x\" | pad(width=1000000000000) }}",
            "{{ \"x\" | pad(width=1, min=10001) }}",
        ] {
            let t = Templates::load("s", &[("t".into(), source.into())], |_| Vec::new()).unwrap();
            let err = t
                .render_section(&Section::new("t"))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("template `s/t` (compiled in), line 1:"),
                "{err}"
            );
            assert!(err.contains("is more than the maximum of 10000"), "{err}");
        }
        let source = "{{ \"x\" | pad(width=10000) }}";
        let t = Templates::load("s", &[("t".into(), source.into())], |_| Vec::new()).unwrap();
        assert_eq!(t.render_section(&Section::new("t")).unwrap().len(), 10_000);
    }
}
