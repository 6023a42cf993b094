//! Replays Kernel inspection logs and prints, per run, how many turns replayed exactly and why
//! the others did not: `cargo run -p ptc-lisp --example replay_report -- FILE...`.

fn main() {
    let (mut total, mut exact) = (0, 0);
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        let run = match ptc_lisp::replay::load_inspection(&text) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        let turns = ptc_lisp::replay::replay(&run, ptc_lisp::Budget::default());
        let ok = turns.iter().filter(|t| t.mismatch.is_none()).count();
        let count = |c| turns.iter().filter(|t| t.checked == c).count();
        use ptc_lisp::replay::Checked;
        println!(
            "{path}: {ok}/{} turns replayed exactly ({} against the whole observation, {} against a cut one, {} against the error code, {} returned)",
            turns.len(),
            count(Checked::Observation),
            count(Checked::CutObservation),
            count(Checked::ErrorCode),
            count(Checked::Return)
        );
        if run.host_programs > 0 {
            println!(
                "  {} programs the host ran (no agent sent them) not replayed",
                run.host_programs
            );
        }
        for t in turns.iter().filter(|t| t.mismatch.is_some()) {
            println!(
                "  {}: {}",
                t.evaluation_id,
                t.mismatch
                    .as_ref()
                    .map(|m| m.to_string())
                    .unwrap_or_default()
            );
        }
        total += turns.len();
        exact += ok;
    }
    println!("all: {exact}/{total} turns replayed exactly");
}
