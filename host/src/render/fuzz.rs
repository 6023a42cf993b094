//! For the `template_diff` fuzz target only: one section rendered by the direct engine and by
//! tera, both as ptc sets them up, so that the target can check that they never differ.

use ptc_plugin_api::Section;
use rustc_hash::FxHashMap;

use super::direct;
use super::templates::Templates;

/// What the direct engine made of the section's template.
#[derive(Debug, PartialEq, Eq)]
pub enum Direct {
    /// It is left to tera.
    NotCompiled,
    /// It compiled, and the render gave up.
    Bailed,
    /// It compiled and rendered this text (without its final newline, as a section is kept).
    Text(String),
}

/// A section rendered both ways.
#[derive(Debug)]
pub enum Outcome {
    /// Tera refused the set of templates (`load` fails, so nothing is rendered at all);
    /// whether the direct engine compiled the section's template anyway.
    Refused { compiled: bool },
    Rendered {
        direct: Direct,
        /// Tera's text, or its error.
        tera: Result<String, String>,
    },
}

/// `section` rendered with the set `sources` (name, source), directly and through tera.
pub fn template_diff(sources: &[(String, String)], section: &Section) -> Outcome {
    let name = section.template.as_str();
    let programs: FxHashMap<String, direct::Program> = sources
        .iter()
        .filter_map(|(name, source)| Some((name.clone(), direct::compile(source)?)))
        .collect();
    let templates = match Templates::load("fuzz", sources, |_| Vec::new()) {
        Ok(templates) => templates,
        Err(_) => {
            return Outcome::Refused {
                compiled: programs.contains_key(name),
            }
        }
    };
    let direct = match programs.get(name) {
        None => Direct::NotCompiled,
        Some(program) => {
            let mut text = String::new();
            match direct::render(program, &programs, &section.fields, &mut text) {
                Ok(()) => {
                    if text.ends_with('\n') {
                        text.pop();
                    }
                    Direct::Text(text)
                }
                Err(direct::Bail) => Direct::Bailed,
            }
        }
    };
    let mut text = String::new();
    let tera = templates
        .append_with_tera(section, &mut Vec::new(), &mut text)
        .map(|()| text)
        .map_err(|err| err.to_string());
    Outcome::Rendered { direct, tera }
}
