//! The direct engine against tera: the bundled templates, hand-written cases and generated
//! templates read the same both ways whenever they run directly.

use std::path::{Path, PathBuf};

use ptc_plugin_api::{Record, Section};

use super::*;
use crate::render::templates::Templates;

fn templates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates")
}

/// The templates of `dir` under `templates/`, by name.
fn bundled(dir: &str) -> Vec<(String, String)> {
    let mut set: Vec<_> = std::fs::read_dir(templates_dir().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    set.sort();
    set
}

/// The section rendered directly (`None` when it is left to tera) and through tera.
fn both(templates: &Templates, section: &Section) -> (Option<Result<String, Bail>>, String) {
    let direct = templates.direct.get(section.template.as_str()).map(|p| {
        let mut text = String::new();
        render(p, &templates.direct, &section.fields, &mut text).map(|()| {
            if text.ends_with('\n') {
                text.pop();
            }
            text
        })
    });
    let mut tera = String::new();
    let tera = match templates.append_with_tera(section, &mut Vec::new(), &mut tera) {
        Ok(()) => tera,
        Err(err) => format!("error: {err}"),
    };
    (direct, tera)
}

/// Checks that the section reads the same directly as through tera, when it is rendered
/// directly; returns whether it was.
fn same(templates: &Templates, section: &Section) -> bool {
    match both(templates, section) {
        (Some(Ok(direct)), tera) => {
            assert_eq!(direct, tera, "{section:?}");
            true
        }
        (Some(Err(Bail)), _) | (None, _) => false,
    }
}

/// Checks that the direct engine gives `fields` up to tera and that the host then renders the
/// section (or fails) as tera says.
fn assert_left_to_tera(templates: &Templates, fields: &Section, source: &str) {
    let (direct, tera) = both(templates, fields);
    assert_eq!(direct, Some(Err(Bail)), "{source}");
    let mut text = String::new();
    match templates.append_section(fields, &mut Vec::new(), &mut text) {
        Ok(()) => assert_eq!(text, tera, "{source}"),
        Err(err) => assert_eq!(format!("error: {err}"), tera, "{source}"),
    }
}

fn set(sources: &[(&str, &str)]) -> Templates {
    let sources: Vec<(String, String)> = sources
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect();
    Templates::load("t", &sources, |_| Vec::new()).unwrap()
}

/// The filters a strategy's template may call and still run directly ([`super::filter`]).
const DIRECT_FILTERS: [&str; 3] = ["| join(sep=", "| default(value=", "| length"];

#[test]
fn bundled_templates_run_directly_unless_they_call_other_filters() {
    let mut filtered = 0;
    for dir in [
        "coalesce",
        "aggressive",
        "delta-log",
        "per-turn-summary",
        "observation-masking",
        "clear-tool-results",
        "trim",
        "compact",
    ] {
        for (name, source) in bundled(dir) {
            let filters = source.matches('|').count();
            let direct: usize = DIRECT_FILTERS
                .iter()
                .map(|f| source.matches(f).count())
                .sum();
            filtered += direct;
            assert_eq!(
                compile(&source).is_some(),
                filters == direct,
                "{dir}/{name} should {}run directly",
                if filters == direct { "" } else { "not " }
            );
        }
    }
    // The response's tools, the programs and the names a masked turn defined.
    assert!(filtered >= 5, "{filtered}");
}

#[test]
fn shared_fields_run_directly_and_read_as_the_fields_they_hold() {
    let list = Field::shared(Field::from(vec![
        Field::shared(Field::from("p")),
        Field::from("q r"),
    ]));
    let record = Field::shared(Field::from(
        Record::new()
            .with("name", Field::shared(Field::from("nm")))
            .with("on", Field::shared(Field::from(true))),
    ));
    let fields = Section::new("x")
        .with("items", list)
        .with("r", record)
        .with("n", Field::shared(Field::from(3i64)));
    for source in [
        "{% for i in items %}<{{ i }}>{% endfor %}",
        "{{ items | join(sep=\", \") }} {{ items | length }}",
        "{% if items %}{{ r.name }}{% endif %}{% if r.on %} on{% endif %} {{ n }}",
        "{{ r.name | default(value=\"-\") }}{% if n > 2 %}!{% endif %}",
    ] {
        let templates = set(&[("x", source)]);
        assert!(same(&templates, &fields), "{source} was left to tera");
    }
}

#[test]
fn join_default_and_length_read_as_tera_reads_them() {
    let texts = |items: &[&'static str]| -> Vec<Field<'static>> {
        items.iter().map(|s| (*s).into()).collect()
    };
    let fields = Section::new("x")
        .with("tools", texts(&["a", "", "c d", "é"]))
        .with("one", texts(&["only"]))
        .with("empty", Vec::<Field>::new())
        .with("program", "(+ 1 2)")
        .with("blank", "")
        .with("r", Record::new().with("names", texts(&["x", "y"])));
    let sources = [
        "{{ tools | join(sep=\", \") }}|{{ one | join(sep=\"-\") }}|{{ empty | join(sep=\",\") }}",
        "{{ tools|join(sep=\"\") }} {{ r.names | join( sep = \" and \" ) }}",
        "{{ program | default(value=\"(unknown program)\") }}[{{ blank | default(value=\"d\") }}]",
        "{{ tools | length }} {{ empty | length }}{% if empty | length > 0 %}E{% endif %}",
        "{% if tools | length != 1 %}s{% endif %}{% if one | length == 1 and tools | length >= 4 %}!{% endif %}",
        "{% for t in r.names %}{{ t }}:{{ r.names | join(sep=\"+\") }};{% endfor %}",
    ];
    for source in sources {
        let templates = set(&[("x", source)]);
        assert!(templates.direct.contains_key("x"), "{source}");
        assert!(same(&templates, &fields), "gave up: {source}");
    }
    // Left to tera when rendered: a list holding a number, an undefined value given a default,
    // the length of a text or of something undefined, a joined text.
    let mixed = Section::new("x")
        .with("items", vec![Field::from("a"), Field::Integer(1)])
        .with("t", "text");
    for source in [
        "{{ items | join(sep=\",\") }}",
        "{{ missing | default(value=\"d\") }}",
        "{{ t | length }}",
        "{% if missing | length > 0 %}{% endif %}",
        "{{ t | join(sep=\",\") }}",
        "{{ items | default(value=\"d\") }}",
    ] {
        assert_left_to_tera(&set(&[("x", source)]), &mixed, source);
    }
    for source in [
        "{{ t | join(sep=\",\") | upper }}",
        "{{ 1 | length }}",
        "{% if t | join(sep=\",\") %}{% endif %}",
        "{% if not t | length %}{% endif %}",
        "{{ none | length }}",
        "{{ t | default(value=t) }}",
        "{% for t in r.names %}{{ r.names | join(sep=t) }}{% endfor %}",
    ] {
        assert!(compile(source).is_none(), "{source}");
    }
}

#[test]
fn whitespace_control_conditions_and_loops_read_as_tera_reads_them() {
    let items: Vec<Field> = ["a", "", "c d"].iter().map(|s| (*s).into()).collect();
    let records: Vec<Field> = (0..3)
        .map(|i| {
            let r = Record::new()
                .with("name", format!("n{i}"))
                .with("n", i as i64);
            if i == 1 {
                r.with("doc", "").into()
            } else {
                r.with("flag", i == 2).into()
            }
        })
        .collect();
    let fields = Section::new("x")
        .with("items", items)
        .with("records", records)
        .with("empty", Vec::<Field>::new())
        .with("n", 3i64)
        .with("m", -12i64)
        .with("t", "text")
        .with("yes", true)
        .with("no", false);
    let sources = [
        "a {{ t }}  \n  {%- if yes %} b {% endif -%}  \n c\n",
        "{#- comment -#}\n  x {# plain #}  y {#- left #}  z {# right -#}  w\n",
        "{% for i in items -%}\n [{{ i }}]{% if not loop.last %},{% endif %}\n{% endfor -%}\nend",
        "{% for r in records %}{{ loop.index }}/{{ loop.index0 }}{% if loop.first %}F{% endif %}:{{ r.name }}{% if r.doc is defined %} doc{% elif r.flag %} flag{% else %} none{% endif %}\n{% endfor %}",
        "{% for r in records %}{% for i in items %}{{ r.n }}{{ i }}{% endfor %};{% endfor %}",
        "{% if n == 3 and m < 0 %}A{% endif %}{% if n != 3 or m >= n %}B{% endif %}{% if n != 3 or m <= n %}b{% endif %}{% if n > 4 %}C{% elif n <= 3 %}D{% endif %}",
        "{% if t == \"text\" %}eq{% endif %}{% if t != \"x\" %}ne{% endif %}{% if yes == true %}T{% endif %}",
        "{% if missing is defined %}def{% else %}undef{% endif %}{% if t is not defined %}!{% endif %}{% if items %}I{% endif %}{% if empty %}E{% endif %}",
        "{{ n }} {{ m }} {{ yes }} {{ no }} {{ 42 }} {{ \"lit\" }}",
        "{% for r in records -%}\n    {{- r.name -}}\n  {% endfor %}",
        "  {%- for i in empty %}never{% endfor -%}  \n\n",
        "{% include \"x2\" %} and {%- include \"x2\" -%} .",
    ];
    for source in sources {
        let templates = set(&[("x", source), ("x2", "[{{ n }}]\n")]);
        assert!(templates.direct.contains_key("x"), "{source}");
        assert!(same(&templates, &fields), "gave up: {source}");
    }
}

#[test]
fn what_tera_might_read_otherwise_is_left_to_it() {
    let fields = Section::new("x")
        .with("items", vec![Field::from("a")])
        .with("n", 3i64)
        .with("t", "text");
    let gives_up = [
        "{{ missing }}",
        "{{ items }}",
        "{% for i in t %}{{ i }}{% endfor %}",
        "{% for i in missing %}{% endfor %}",
        "{{ t.x }}",
        "{% if n == \"3\" %}{% endif %}",
        "{% if t > \"a\" %}{% endif %}",
        "{% if missing %}{% endif %}",
        "{{ n.x.y }}",
    ];
    for source in gives_up {
        assert_left_to_tera(&set(&[("x", source)]), &fields, source);
    }
    let not_compiled = [
        "{{ t | upper }}",
        "{% set a = 1 %}",
        "{% for k, v in m %}{% endfor %}",
        "{% for i in items %}{% include \"x\" %}{% endfor %}",
        "{% raw %}{{ x }}{% endraw %}",
        "{{ a + 1 }}",
        "{{ __tera_context }}",
        "{% if not a is defined %}{% endif %}",
        "{% for i in items %}{% else %}{% endfor %}",
        "{% if a %}",
        "{{ \"a\\\"b\" }}",
        "{{ 1.5 }}",
        "{% if m > -1 %}{% endif %}",
    ];
    for source in not_compiled {
        assert!(compile(source).is_none(), "{source}");
    }
}

/// Found by the `template_diff` fuzz target: a character of several bytes in a tag, outside
/// a string literal, panicked where the tag's end was looked for.
#[test]
fn a_tag_holding_a_character_of_several_bytes_is_left_to_tera() {
    for source in [
        "{{ é }}",
        "{% if s == é %}x{% endif %}",
        "{{- s.é -}}",
        "{% é %}",
    ] {
        assert!(compile(source).is_none(), "{source}");
    }
    let templates = set(&[("x", "{% if s %}é{% endif %}{{ s }}é")]);
    assert!(same(&templates, &Section::new("x").with("s", "é")));
}

/// Found by the `template_diff` fuzz target: of two fields (or two fields of a record) of the
/// same name, tera reads the last.
#[test]
fn of_two_fields_of_one_name_the_last_is_read() {
    let fields = Section::new("x")
        .with("s", true)
        .with("r", Record::new().with("a", "first").with("a", "last"))
        .with("s", "second");
    let templates = set(&[(
        "x",
        "{{ s }} {{ r.a }}{% if s == \"second\" %} eq{% endif %}",
    )]);
    assert!(same(&templates, &fields));
    let (direct, _) = both(&templates, &fields);
    assert_eq!(direct, Some(Ok("second last eq".to_owned())));
}

/// Found by the `template_diff` fuzz target: `none` (or `true`, ...) printed or looped over is
/// tera's literal even when a field has that name.
#[test]
fn a_keyword_printed_or_looped_over_is_left_to_tera() {
    for source in [
        "{{ none }}",
        "{{ true }}",
        "{{- False -}}",
        "{% for i in none %}{% endfor %}",
    ] {
        assert!(compile(source).is_none(), "{source}");
    }
}

/// The coalesced view and the conversation without compression, for every prefix of every
/// example recording, read the same directly as through tera.
#[test]
fn the_coalesced_sections_of_the_examples_read_as_through_tera() {
    use ptc_strategy_kit::coalesce;
    let (templates, settings, recordings) = crate::render::tests::coalesce_examples();
    let mut direct = 0;
    for recording in &recordings {
        for k in 0..=recording.turns.len() {
            let turns = &recording.turns[..k];
            let (user, _) = coalesce::user_message(&recording.run, turns, &settings);
            let uncompressed = coalesce::uncompressed(&recording.run, turns, &settings);
            let messages = uncompressed.messages.into_iter().chain([user]);
            for message in messages {
                for section in message.sections() {
                    direct += usize::from(same(&templates, section));
                }
            }
        }
    }
    assert!(direct > 100, "only {direct} sections ran directly");
}

/// A template of the part of tera run directly: text, prints, conditions and loops, with
/// and without whitespace control, nested.
fn any_template() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let text = prop_oneof![
        Just("a".to_owned()),
        Just(" ".to_owned()),
        Just("\n".to_owned()),
        Just("  \n ".to_owned()),
        Just("x y\n\n".to_owned()),
        Just("{# c #}".to_owned()),
        Just(" {#- c -#} ".to_owned()),
    ];
    let value = prop_oneof![
        Just("s"),
        Just("n"),
        Just("b"),
        Just("e"),
        Just("r.name"),
        Just("missing"),
        Just("items"),
        Just("r.missing"),
        Just("\"lit\""),
        Just("7"),
        Just("items | join(sep=\", \")"),
        Just("s | default(value=\"d\")"),
        Just("missing | default(value=\"d\")"),
        Just("items | length"),
        Just("s | length"),
    ];
    let print = (value, any::<bool>(), any::<bool>()).prop_map(|(v, l, r)| {
        format!(
            "{{{{{} {v} {}}}}}",
            if l { "-" } else { "" },
            if r { "-" } else { "" }
        )
    });
    let leaf = prop_oneof![text, print];
    leaf.prop_recursive(3, 24, 4, |inner| {
        let condition = prop_oneof![
            Just("s"),
            Just("not b"),
            Just("n == 3"),
            Just("n < 2 or b"),
            Just("s == \"x\" and n >= 1"),
            Just("e != \"\""),
            Just("missing is defined"),
            Just("r.name is not defined"),
            Just("items"),
            Just("missing"),
            Just("s > 1"),
            Just("items | length > 1"),
            Just("items | length == n"),
        ];
        let body = proptest::collection::vec(inner, 0..4).prop_map(|parts| parts.concat());
        let trim = any::<bool>();
        prop_oneof![
            (condition, body.clone(), body.clone(), trim).prop_map(|(c, yes, no, t)| {
                let d = if t { "-" } else { "" };
                format!("{{%{d} if {c} {d}%}}{yes}{{% else %}}{no}{{%{d} endif {d}%}}")
            }),
            (body.clone(), trim).prop_map(|(b, t)| {
                let d = if t { "-" } else { "" };
                format!(
                    "{{% for i in items {d}%}}{{{{ i }}}}{b}{{% if loop.last %}}.{{% elif loop.first %}}{{{{ loop.index }}}}{{% endif %}}{{%{d} endfor %}}"
                )
            }),
            proptest::collection::vec(body, 1..3).prop_map(|parts| parts.concat()),
        ]
    })
}

/// Any template of the part run directly, on fields of every kind, reads as tera reads it
/// whenever it is run directly (and most are).
#[test]
fn any_template_run_directly_reads_as_through_tera() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let fields = (
        proptest::sample::select(vec![
            "",
            "x",
            "a b",
            "twelve bytes",
            "é and past sixteen bytes",
        ]),
        0i64..5,
        any::<bool>(),
        proptest::collection::vec(proptest::sample::select(vec!["", "p", "q r"]), 0..3),
        any::<bool>(),
    );
    let mut runner = TestRunner::new(Config {
        cases: 4096,
        ..Config::default()
    });
    let (ran, direct) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner
        .run(
            &(any_template(), fields),
            |(source, (s, n, b, items, share))| {
                let items = Field::from(items.into_iter().map(Field::from).collect::<Vec<_>>());
                let record = Field::from(Record::new().with("name", "nm"));
                // Shared (a run's head), a field reads as the one it holds.
                let (items, record) = match share {
                    true => (Field::shared(items), Field::shared(record)),
                    false => (items, record),
                };
                let fields = Section::new("x")
                    .with("s", s)
                    .with("n", n)
                    .with("b", b)
                    .with("e", "")
                    .with("items", items)
                    .with("r", record);
                let templates = set(&[("x", source.as_str())]);
                ran.set(ran.get() + 1);
                direct.set(direct.get() + usize::from(same(&templates, &fields)));
                Ok(())
            },
        )
        .unwrap();
    assert!(
        direct.get() * 4 > ran.get(),
        "only {} of {} templates ran directly",
        direct.get(),
        ran.get()
    );
}

#[test]
fn a_tag_opens_where_the_first_of_the_three_openings_is() {
    // Every text of up to six characters over an alphabet of braces, marks and a character of
    // two bytes.
    let alphabet = ['{', '%', '#', '}', 'é'];
    let mut texts = vec![String::new()];
    for _ in 0..6 {
        let longer: Vec<String> = texts
            .iter()
            .filter(|t| t.chars().count() == texts.last().map_or(0, |l| l.chars().count()))
            .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
            .collect();
        texts.extend(longer);
    }
    for text in &texts {
        let first = ["{{", "{%", "{#"]
            .iter()
            .filter_map(|d| text.find(d))
            .min()
            .unwrap_or(text.len());
        assert_eq!(super::lex::next_open(text), first, "{text:?}");
    }
}
