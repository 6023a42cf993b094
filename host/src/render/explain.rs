//! Where each line of a prompt comes from: every section the strategy emitted, with the
//! template that rendered it, where that template was loaded from, the fields it received and
//! the text it gave (`ptc render --explain`).

use ptc_plugin_api::{Output, Role};

use crate::render::templates::Origin;
use crate::render::{RenderError, Renderer};

/// One section of a prompt, explained.
pub struct Explained {
    /// The message's role and its place among the messages (from 1).
    pub role: Role,
    pub message: usize,
    /// The block's place in its message (from 1), and whether it ends with a cache breakpoint.
    pub block: usize,
    pub cache_breakpoint: bool,
    pub strategy: String,
    pub template: String,
    pub origin: Origin,
    /// The fields, as JSON in the order the strategy gave them.
    pub fields: String,
    /// What the template rendered (empty: the section leaves no trace in the prompt).
    pub text: String,
}

impl Renderer<'_> {
    /// Every section of `output`, in prompt order, explained.
    pub fn explain(&self, output: &Output) -> Result<Vec<Explained>, RenderError> {
        let mut explained = Vec::new();
        for (m, message) in output.messages.iter().enumerate() {
            for (b, block) in message.blocks.iter().enumerate() {
                for section in block.sections.iter() {
                    let mut text = String::new();
                    self.append_section(section, &mut Vec::new(), &mut text)?;
                    let template = section.template.as_str();
                    explained.push(Explained {
                        role: message.role,
                        message: m + 1,
                        block: b + 1,
                        cache_breakpoint: block.cache_breakpoint,
                        strategy: self.strategy().name.clone(),
                        template: template.to_owned(),
                        origin: self.templates().origin(template),
                        fields: self.templates().fields_json(section),
                        text,
                    });
                }
            }
        }
        Ok(explained)
    }
}
