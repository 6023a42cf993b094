# ptc_runner's side of .ci/lisp-differential: reads program lines (JSON) on stdin, runs each
# program through PtcRunner.Lisp.run_native and prints one JSON line per program in the shape of
# `cargo run -p ptc-lisp --example eval`.
#
# A program of a recorded run ("run") runs as ptc_runner's Kernel runs it: with the run's
# preludes, the memory and the last three values (*1..*3) the run's earlier successful programs
# left, and tools that answer each call with the next recorded call of that name ("calls"),
# whatever its arguments, else with {:status :error :reason "not recorded"}. A program of no run
# runs alone, with no tools and no memory.
unless Code.ensure_loaded?(:telemetry) do
  defmodule :telemetry do
    def execute(_event, _measurements, _metadata), do: :ok
    def span(_event, _metadata, fun), do: elem(fun.(), 0)
  end
end

require Logger
Logger.configure(level: :error)

defmodule LispDifferential do
  alias PtcRunner.Lisp.Format

  def pr(v) do
    Format.to_clojure(v) |> elem(0)
  rescue
    e -> "#<unprintable " <> Exception.message(e) <> ">"
  end

  # A recorded capability result as the Kernel's dispatcher hands it to a program: top-level
  # keys as atoms, the status as an atom, the rest as JSON decodes it.
  def answer(result) when is_map(result) do
    Map.new(result, fn
      {"status", s} when is_binary(s) -> {:status, String.to_atom(s)}
      {k, v} -> {String.to_atom(k), v}
    end)
  end

  def answer(other), do: other

  def json_safe(v) do
    case Jason.encode(v) do
      {:ok, _} -> v
      {:error, _} -> inspect(v)
    end
  end

  # Tools for every name the program, the preludes or the recording mention, all drawing on one
  # agent that holds the recorded calls still to answer and the calls made.
  def tools(agent, names) do
    Map.new(names, fn name ->
      fun = fn args ->
        Agent.get_and_update(agent, fn {pending, made} ->
          made = [%{"name" => name, "arguments" => json_safe(args)} | made]

          case pending do
            [%{"name" => ^name, "result" => result} | rest] -> {answer(result), {rest, made}}
            _ -> {%{status: :error, reason: "not recorded"}, {pending, made}}
          end
        end)
      end

      {name, %PtcRunner.Lisp.TrustedTool{function: fun}}
    end)
  end

  def names(texts, calls) do
    from_text =
      Enum.flat_map(texts, fn t -> Regex.scan(~r{tool/([A-Za-z0-9_.\-]+)}, t, capture: :all_but_first) end)
      |> List.flatten()

    Enum.uniq(from_text ++ Enum.map(calls, & &1["name"]))
  end

  def run(input, runs) do
    run_id = input["run"]

    state =
      case {run_id, Map.get(runs, run_id)} do
        {nil, _} -> %{preludes: [], memory: %{}, history: []}
        {_, nil} -> %{preludes: input["preludes"] || [], memory: %{}, history: []}
        {_, s} -> s
      end

    calls = input["calls"] || []
    {:ok, agent} = Agent.start_link(fn -> {calls, []} end)
    preludes = Enum.map(state.preludes, fn [id, src] -> %{id: id, source: src} end)
    names = names([input["program"] | Enum.map(preludes, & &1.source)], calls)

    opts =
      [memory: state.memory, turn_history: state.history, tools: tools(agent, names),
       timeout: 5000, filter_context: false, caller: :kernel, preserve_runtime_callables: true] ++
        if(preludes == [], do: [], else: [prelude: preludes])

    {record, state} =
      try do
        case PtcRunner.Lisp.run_native(input["program"], opts) do
          {:ok, %{return: {:__ptc_return__, v}} = step} ->
            {%{"status" => "return", "value" => pr(v), "error" => nil, "prints" => step.prints || []},
             %{state | memory: step.memory}}

          {:ok, %{return: {:__ptc_fail__, v}} = step} ->
            {%{"status" => "fail", "value" => pr(v), "error" => nil, "prints" => step.prints || []},
             state}

          {:ok, step} ->
            {%{"status" => "ok", "value" => pr(step.return), "error" => nil,
               "prints" => step.prints || []},
             %{state | memory: step.memory, history: Enum.take(state.history ++ [step.return], -3)}}

          {:error, step} ->
            fail = step.fail || %{}
            reason = Map.get(fail, :reason)
            status = if reason in [:failed, :fail], do: "fail", else: "error"

            {%{"status" => status, "value" => nil, "error" => to_string(reason),
               "message" => to_string(Map.get(fail, :message, "")), "prints" => step.prints || []},
             state}
        end
      rescue
        e ->
          {%{"status" => "crash", "value" => nil, "error" => Exception.message(e), "prints" => []},
           state}
      end

    {_, made} = Agent.get(agent, & &1)
    Agent.stop(agent)
    record = record |> Map.put("calls", Enum.reverse(made)) |> Map.put("id", input["id"])
    {record, if(run_id, do: Map.put(runs, run_id, state), else: runs)}
  end
end

IO.stream(:stdio, :line)
|> Enum.reduce(%{}, fn line, runs ->
  if String.trim(line) == "" do
    runs
  else
    {record, runs} = LispDifferential.run(Jason.decode!(line), runs)
    IO.puts(Jason.encode!(record))
    runs
  end
end)
