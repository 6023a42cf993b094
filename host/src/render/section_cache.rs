//! The sections of a run's prompts already rendered, with their text; and the messages of the
//! run's last prompt, with theirs.
//!
//! A section is looked up by what it is made of. Text a section borrows is known by where it
//! lives, not by what it reads: a borrowed text lives, unchanged, as long as the run it was
//! rendered from (or the plugin, for a label), so two sections borrowing the same place hold
//! the same text, and the lookup neither hashes nor compares it. Text the strategy built (a
//! sample, a printed value) is hashed and compared. The same text borrowed from another place,
//! or built again, is a section rendered once more, to the same text. A field the strategy
//! shares between prompts (`Field::Shared`: a run's head, a value's sample) is known by its
//! address, as a borrowed text by its place: met again, it is neither hashed nor compared.
//!
//! A message made of the same sections as the message at its place in the run's last prompt
//! is that message's text again, shared rather than copied (the earlier turns of a full
//! history): it is neither looked up section by section nor written again, and the counting
//! that follows knows it by its address. A message whose blocks the strategy shares between
//! prompts ([`Blocks::Shared`]) is known by their address wherever it stands (a window's
//! messages, shifted): met again, it is its first text again, and nothing it holds is read.

use std::hash::{BuildHasher, Hasher};

use abi_stable::std_types::{RArc, RCow, RStr, RString};
use ptc_plugin_api::{Blocks, Field, Message, Output, Role, Section};
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::message::RenderedMessage;
use crate::render::RenderError;

/// Sections already rendered by one renderer, with their text, and the messages of its last
/// prompt. The prompts of one run repeat most of their sections and messages (the head of
/// every prompt, every earlier turn of a full history), so a caller rendering many prompts of a
/// run keeps one of these per renderer.
#[derive(Default)]
pub struct SectionCache<'r> {
    /// By a hash of the section's key ([`write_key`]): the sections with that hash, each by
    /// its key, and their text (more than one only when hashes collide; one is held in
    /// place). A key names the places of the texts the section borrows from the run it was
    /// rendered from: the cache lives no longer than the run.
    by_key: FxHashMap<u64, smallvec::SmallVec<[Rendered; 1]>>,
    /// The key of the section being looked up, and the shared fields it names: reused from
    /// section to section.
    scratch: (Vec<u8>, Vec<RArc<Field<'static>>>),
    /// The strategy's output for the last prompt kept ([`SectionCache::keep`]), with each of
    /// its messages as rendered on its own (`None`: rendering it changed an earlier message).
    last: Option<(Output<'r>, Vec<Option<RenderedMessage>>)>,
    /// The messages of the prompt being rendered, as [`SectionCache::rendered`] gave them.
    now: Vec<Option<RenderedMessage>>,
    /// By the address of shared blocks and the role of their message: the message as
    /// rendered on its own, and the blocks (held, so that the address stays theirs).
    by_address: FxHashMap<(usize, Role), (Blocks<'r>, RenderedMessage)>,
}

impl<'r> SectionCache<'r> {
    /// Appends the text of `section` to `out`, rendering it with `render` only the first time.
    pub(super) fn append(
        &mut self,
        section: &Section<'r>,
        out: &mut String,
        render: impl FnOnce(&mut String) -> Result<(), RenderError>,
    ) -> Result<(), RenderError> {
        if self.by_key.capacity() == 0 {
            // A run's prompts render some 50 to 110 distinct sections through one renderer
            // (W3's runs of 20 turns): the map is not rehashed five times as it grows.
            self.by_key.reserve(SECTIONS);
        }
        let (key, shared) = &mut self.scratch;
        key.clear();
        write_key(section, key, shared);
        let mut hash = FxBuildHasher.build_hasher();
        hash.write(key);
        let entries = self.by_key.entry(hash.finish()).or_default();
        // Equal keys name long texts at the same places: a section kept without any has none.
        let found = entries.iter().find(|kept| {
            *kept.key == **key && (kept.long.is_empty() || same_long_texts(&kept.long, section))
        });
        if let Some(kept) = found {
            shared.clear();
            out.push_str(&kept.text);
            return Ok(());
        }
        // Rendered where it goes (`out` is sized for the message), then kept: one allocation of
        // the text's size rather than a buffer grown from empty.
        let start = out.len();
        if let Err(err) = render(out) {
            out.truncate(start);
            shared.clear();
            return Err(err);
        }
        let mut long = String::new();
        each_long_text(section, &mut |text| long.push_str(text));
        // Moved out of the scratch list, which keeps its room for the next key.
        let mut kept = Vec::with_capacity(shared.len());
        kept.append(shared);
        entries.push(Rendered {
            key: key.as_slice().into(),
            shared: kept,
            long,
            text: out[start..].to_owned(),
        });
        Ok(())
    }

    /// Message `at` of the last prompt kept, as rendered on its own, when `message` is made of
    /// the same sections in the same blocks; shared blocks already rendered, wherever they
    /// stand, as rendered then.
    pub(super) fn repeated(&self, at: usize, message: &Message<'r>) -> Option<RenderedMessage> {
        if let Some(address) = message.blocks.shared_address() {
            if let Some((_, rendered)) = self.by_address.get(&(address, message.role)) {
                return Some(rendered.clone());
            }
        }
        let (output, rendered) = self.last.as_ref()?;
        let before = output.messages.get(at)?;
        let rendered = rendered.get(at)?.as_ref()?;
        same_message(before, message).then(|| rendered.clone())
    }

    /// Starts the messages of a prompt.
    pub(super) fn start(&mut self) {
        self.now.clear();
    }

    /// The next message of the prompt being rendered, the text of a message met before
    /// ([`SectionCache::repeated`]).
    pub(super) fn again(&mut self, message: RenderedMessage) {
        self.now.push(Some(message));
    }

    /// The next message of the prompt being rendered, `source`, as rendered on its own
    /// (`None`: its rendering changed an earlier message, so that it is not to be repeated on
    /// its own).
    pub(super) fn rendered(&mut self, source: &Message<'r>, message: Option<RenderedMessage>) {
        if let (Some(address), Some(message)) = (source.blocks.shared_address(), &message) {
            self.by_address
                .entry((address, source.role))
                .or_insert_with(|| (source.blocks.clone(), message.clone()));
        }
        self.now.push(message);
    }

    /// Keeps `output`, whose messages were just rendered through this cache, for the next
    /// prompt's [`SectionCache::repeated`].
    pub fn keep(&mut self, output: Output<'r>) {
        let rendered = std::mem::take(&mut self.now);
        let before = if rendered.len() == output.messages.len() {
            self.last.replace((output, rendered))
        } else {
            self.last.take()
        };
        // The list of the prompt before is the next prompt's, emptied: not grown again from
        // nothing each prompt.
        if let Some((_, mut spare)) = before {
            spare.clear();
            self.now = spare;
        }
    }
}

/// Whether two messages render to the same text: the same role, and blocks with the same
/// breakpoints of the same sections ([`same`]).
fn same_message(a: &Message<'_>, b: &Message<'_>) -> bool {
    if a.role != b.role {
        return false;
    }
    a.blocks.same_shared(&b.blocks)
        || a.blocks.len() == b.blocks.len()
            && a.blocks.iter().zip(b.blocks.iter()).all(|(a, b)| {
                a.cache_breakpoint == b.cache_breakpoint
                    && a.sections.len() == b.sections.len()
                    && a.sections
                        .iter()
                        .zip(b.sections.iter())
                        .all(|(a, b)| same(a, b))
            })
}

/// Sections a renderer's cache makes room for at its first: most runs render fewer, a long one
/// grows it.
const SECTIONS: usize = 96;

/// A section rendered, known by its key ([`write_key`]).
struct Rendered {
    key: Box<[u8]>,
    /// The shared fields the key names by their address: held, so that no other field takes
    /// that address while the key is kept (never read).
    #[allow(dead_code)]
    shared: Vec<RArc<Field<'static>>>,
    /// The built texts longer than [`INLINE`] bytes, which the key names by their length and
    /// ends only, one after the other in the key's order: compared whole on a lookup.
    long: String,
    text: String,
}

/// Bytes of a built text written whole into a key; a longer one is hashed by its length and
/// ends and compared apart ([`Rendered::long`]), not copied into every key that holds it.
const INLINE: usize = 64;

/// Calls `each` with the built texts of `section` longer than [`INLINE`] bytes, in the order
/// of its key.
fn each_long_text<'a>(section: &'a Section<'_>, each: &mut impl FnMut(&'a str)) {
    fn visit<'a>(field: &'a Field<'_>, each: &mut impl FnMut(&'a str)) {
        match field {
            Field::Text(RCow::Owned(text)) if text.len() > INLINE => each(text.as_str()),
            Field::List(items) => items.iter().for_each(|item| visit(item, each)),
            Field::Record(fields) => fields.iter().for_each(|f| visit(&f.1, each)),
            _ => {}
        }
    }
    for f in section.fields.iter() {
        visit(&f.1, each);
    }
}

/// Whether the long built texts of `section` are `long`, one after the other.
fn same_long_texts(long: &str, section: &Section<'_>) -> bool {
    let (mut at, mut same) = (0, true);
    each_long_text(section, &mut |text| {
        same = same && long.get(at..at + text.len()) == Some(text);
        at += text.len();
    });
    same && at == long.len()
}

/// Writes the key of `section` to `key`: its template and field names and every borrowed text
/// by their place, built text by its bytes (a long one by its length and ends, compared apart:
/// [`Rendered::long`]), shared fields by their address (each also pushed to `shared`), numbers
/// by their value. Two sections of the same key and the same long texts render to the same
/// text; two that hold the same texts at other places have other keys, and are rendered once
/// each. Rendered once and looked up by comparing bytes, a section is neither copied nor
/// compared field by field.
fn write_key(section: &Section<'_>, key: &mut Vec<u8>, shared: &mut Vec<RArc<Field<'static>>>) {
    place(key, section.template);
    number(key, section.fields.len() as u64);
    for field in section.fields.iter() {
        place(key, field.0);
        field_key(key, shared, &field.1);
    }
}

fn number(key: &mut Vec<u8>, n: u64) {
    key.extend_from_slice(&n.to_le_bytes());
}

fn place(key: &mut Vec<u8>, text: RStr<'_>) {
    number(key, text.as_ptr() as usize as u64);
    number(key, text.len() as u64);
}

fn field_key(key: &mut Vec<u8>, shared: &mut Vec<RArc<Field<'static>>>, field: &Field<'_>) {
    match field {
        Field::Shared(field) => {
            // By its address, as a borrowed text: a lookup meets the same allocation again.
            key.push(6);
            number(key, std::ptr::from_ref::<Field<'_>>(field).addr() as u64);
            shared.push(field.clone());
        }
        Field::Text(RCow::Borrowed(text)) => {
            key.push(0);
            place(key, *text);
        }
        Field::Text(RCow::Owned(text)) if text.len() <= INLINE => {
            key.push(1);
            number(key, text.len() as u64);
            key.extend_from_slice(text.as_bytes());
        }
        Field::Text(RCow::Owned(text)) => {
            // By its length and ends: compared whole apart ([`Rendered::long`]).
            key.push(7);
            number(key, text.len() as u64);
            number(key, crate::hash::quick_hash(text));
        }
        Field::Integer(n) => {
            key.push(2);
            number(key, *n as u64);
        }
        Field::Boolean(b) => {
            key.push(3);
            key.push(u8::from(*b));
        }
        Field::List(items) => {
            key.push(4);
            number(key, items.len() as u64);
            for item in items.iter() {
                field_key(key, shared, item);
            }
        }
        Field::Record(fields) => {
            key.push(5);
            number(key, fields.len() as u64);
            for field in fields.iter() {
                place(key, field.0);
                field_key(key, shared, &field.1);
            }
        }
    }
}

/// Whether two sections render to the same text: equal, a text at one place read once.
fn same(a: &Section<'_>, b: &Section<'_>) -> bool {
    same_text(a.template, b.template)
        && a.fields.len() == b.fields.len()
        && a.fields
            .iter()
            .zip(b.fields.iter())
            .all(|(a, b)| same_text(a.0, b.0) && same_field(&a.1, &b.1))
}

fn same_text(a: RStr<'_>, b: RStr<'_>) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a.as_str() == b.as_str()
}

fn view<'a>(text: &'a RCow<RStr<'_>, RString>) -> RStr<'a> {
    match text {
        RCow::Borrowed(text) => *text,
        RCow::Owned(text) => text.as_rstr(),
    }
}

fn same_field(a: &Field<'_>, b: &Field<'_>) -> bool {
    match (a, b) {
        (Field::Text(a), Field::Text(b)) => same_text(view(a), view(b)),
        (Field::Integer(a), Field::Integer(b)) => a == b,
        (Field::Boolean(a), Field::Boolean(b)) => a == b,
        (Field::List(a), Field::List(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(a, b)| same_field(a, b))
        }
        (Field::Record(a), Field::Record(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(a, b)| same_text(a.0, b.0) && same_field(&a.1, &b.1))
        }
        _ => same_shared_field(a, b),
    }
}

/// [`same_field`] of two fields of which one is shared, or of different kinds: one allocation,
/// or what each holds. Kept out of `same_field`, which is thereby small enough to be inlined.
#[cold]
#[inline(never)]
fn same_shared_field(a: &Field<'_>, b: &Field<'_>) -> bool {
    (matches!(a, Field::Shared(_)) || matches!(b, Field::Shared(_)))
        && (a.same_shared(b) || same_field(a.resolve(), b.resolve()))
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::Tuple2;

    use super::*;

    fn at(text: &str) -> Field<'_> {
        Field::Text(RCow::Borrowed(RStr::from(text)))
    }

    fn built(text: &str) -> Field<'static> {
        Field::Text(RCow::Owned(RString::from(text)))
    }

    /// Renders `sections` through one cache, each section's text being its debug form: how
    /// many times the cache rendered. Checks that each text is the one its section renders
    /// to, cached or not.
    fn rendered_through_cache(sections: &[Section<'_>]) -> usize {
        let mut cache = SectionCache::default();
        let mut rendered = 0;
        for section in sections {
            let mut out = String::new();
            cache
                .append(section, &mut out, |t| {
                    rendered += 1;
                    t.push_str(&format!("{section:?}"));
                    Ok(())
                })
                .unwrap();
            assert_eq!(out, format!("{section:?}"));
        }
        rendered
    }

    #[test]
    fn a_section_is_rendered_once_per_place_and_value() {
        let run = String::from("printed line\nprinted line\n");
        let (first, second) = (&run[..12], &run[13..25]);
        assert_eq!(first, second);
        let printed = |field| Section::new("printed").with("text", field);
        let listed = |n: i64| {
            Section::new("printed").with(
                "lines",
                Field::List(vec![Field::Integer(n), Field::Boolean(true)].into()),
            )
        };
        let shared = Field::shared(built("kept"));
        let sections = [
            printed(at(first)),
            printed(at(first)),     // the same place: not rendered again
            printed(at(second)),    // the same text at another place: rendered again
            printed(built(first)),  // built text: by its value
            printed(built(second)), // the same value: not rendered again
            printed(built("another")),
            listed(1),
            listed(1),
            listed(2),
            printed(at(&run[..7])), // a shorter text at the same place
            printed(shared.clone()),
            printed(shared.clone()), // the same allocation: not rendered again
            printed(Field::shared(built("kept"))), // another: rendered again
        ];
        assert_eq!(rendered_through_cache(&sections), 9);
    }

    /// A long built text is in the key by its length and ends only: two that share those and
    /// differ in the middle are told apart, and one met again is not rendered again.
    #[test]
    fn long_built_texts_are_compared_whole() {
        let long = |middle: char| {
            // Its middle past the 64 bytes at each end that name it in the key.
            let text = format!("{}{middle}{}", "a".repeat(100), "z".repeat(100));
            Section::new("printed").with(
                "lines",
                Field::List(vec![built("short"), built(&text)].into()),
            )
        };
        let sections = [long('m'), long('n'), long('m'), long('n')];
        assert_eq!(rendered_through_cache(&sections), 2);
    }

    /// A shared field is known by its address while its section is kept: the cache holds it,
    /// so that a field made after the first is dropped never takes its address for its own.
    #[test]
    fn a_shared_field_dropped_by_its_strategy_is_not_taken_for_a_later_one() {
        let mut cache = SectionCache::default();
        let mut render = |text: &str| {
            let section = Section::new("printed").with("text", Field::shared(built(text)));
            let mut out = String::new();
            cache
                .append(&section, &mut out, |t| {
                    t.push_str(text);
                    Ok(())
                })
                .unwrap();
            // The section, and the strategy's count on its field, go here.
            out
        };
        for text in ["first", "other", "third", "fifth"] {
            assert_eq!(render(text), text);
        }
    }

    #[test]
    fn fields_the_same_as_values_are_the_same_and_others_are_not() {
        let run = String::from("ab ab");
        let record = |field| Field::Record(vec![Tuple2(RStr::from("n"), field)].into());
        let pairs = [
            (at(&run[..2]), at(&run[3..]), true),
            (at(&run[..2]), built("ab"), true),
            (at(&run[..2]), at(&run[..1]), false),
            (built("a"), built("b"), false),
            (Field::Integer(1), Field::Boolean(true), false),
            (record(at(&run[..2])), record(built("ab")), true),
            (record(at(&run[..2])), record(built("a")), false),
            (Field::shared(at(&run[..2])), built("ab"), true),
            (at(&run[3..]), Field::shared(built("ab")), true),
            (
                Field::shared(built("ab")),
                Field::shared(at(&run[..2])),
                true,
            ),
            (Field::shared(built("ab")), Field::shared(built("a")), false),
            (
                record(Field::shared(built("ab"))),
                record(at(&run[..2])),
                true,
            ),
            (
                Field::shared(Field::Integer(1)),
                Field::Boolean(true),
                false,
            ),
        ];
        for (a, b, equal) in pairs {
            assert_eq!(same_field(&a, &b), equal, "{a:?} {b:?}");
            assert_eq!(a == b, equal, "{a:?} {b:?}");
        }
    }
}
