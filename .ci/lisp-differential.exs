# ptc_runner's side of .ci/lisp-differential: reads {"id","program"} JSON lines on stdin, runs
# each program through PtcRunner.Lisp.run_native (no tools, no memory) and prints one JSON line
# per program in the shape of `cargo run -p ptc-lisp --example eval`.
unless Code.ensure_loaded?(:telemetry) do
  defmodule :telemetry do
    def execute(_event, _measurements, _metadata), do: :ok
    def span(_event, _metadata, fun), do: elem(fun.(), 0)
  end
end

alias PtcRunner.Lisp.Format

pr = fn v ->
  try do
    Format.to_clojure(v) |> elem(0)
  rescue
    e -> "#<unprintable " <> Exception.message(e) <> ">"
  end
end

IO.stream(:stdio, :line)
|> Enum.each(fn line ->
  if String.trim(line) != "" do
    input = Jason.decode!(line)

    record =
      try do
        case PtcRunner.Lisp.run_native(input["program"], timeout: 5000) do
          {:ok, step} ->
            %{"status" => "ok", "value" => pr.(step.return), "error" => nil,
              "prints" => step.prints || []}

          {:error, step} ->
            fail = step.fail || %{}
            reason = Map.get(fail, :reason)
            status = if reason in [:failed, :fail], do: "fail", else: "error"
            %{"status" => status, "value" => nil,
              "error" => to_string(reason), "message" => to_string(Map.get(fail, :message, "")),
              "prints" => step.prints || []}
        end
      rescue
        e -> %{"status" => "crash", "value" => nil, "error" => Exception.message(e), "prints" => []}
      end

    IO.puts(Jason.encode!(Map.put(record, "id", input["id"])))
  end
end)
