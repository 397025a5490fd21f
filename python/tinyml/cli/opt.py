"""tinyml-opt: the mlir-opt of tinyml. Reads MLIR (or an ONNX model), runs a
pipeline of tinyml and upstream passes, prints the result."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Sequence

from mlir import ir

from ..ir.context import make_context
from ..ir.diagnostics import location_prefix, severity_name
from ..frontend import FrontendError, is_tflite
from ..ir.parser_traps import parser_traps
from ..pipeline.registry import PipelineError, registered_passes, registered_pipelines
from ..pipeline.builder import Pipeline
from ..safe_io import OutputError, write_file
from .crash_guard import internal_error, phase, reader_gone, run_guarded
from .verify_diagnostics import Reported, check, parse_expectations

SPLIT_MARKER = "// -----"

USAGE = """usage: tinyml-opt [options] [input-file]

Reads MLIR from input-file (or stdin, or '-'); a file ending in .onnx is
imported with the ONNX frontend, a TFLite flatbuffer (by its 'TFL3'
identifier) with the TFLite frontend. Runs the passes given by --pass-pipeline or
by one --<pass>[=options] flag per pass, in order, and prints the result.

options:
  -o FILE                          write the output to FILE (default: stdout)
  --pass-pipeline=PIPELINE         e.g. 'builtin.module(tinyml-simplify,func.func(cse))'
  --<pass>[="opt=value ..."]       append one pass (tinyml or upstream)
  --split-input-file               process chunks separated by '// -----' alone
  --verify-diagnostics             check '// expected-error @+1 {{...}}' comments
  --mlir-print-ir-after-all        print the IR after every pass (to stderr)
  --mlir-elide-elementsattrs-if-larger=N
                                   print large constants as dense_resource<__elided__>
  --mlir-print-op-generic          print the generic op form
  --mlir-print-debuginfo           print every op's location
  --import-onnx                    treat the input as an ONNX model
  --list-passes                    list the tinyml passes and pipelines, with options
  -h, --help                       this text and the pass list
"""


class UsageError(Exception):
    pass


@dataclass
class Options:
    input: str = "-"
    output: str = "-"
    pipeline: Pipeline = field(default_factory=Pipeline)
    pipeline_text: str | None = None
    split_input_file: bool = False
    verify_diagnostics: bool = False
    print_ir_after_all: bool = False
    elide_limit: int | None = None
    generic: bool = False
    debug_info: bool = False
    import_onnx: bool = False
    import_tflite: bool = False
    tflite_streaming: bool = False  # a TFLite model's variables as state inputs and outputs

    @property
    def model_reader(self) -> str | None:
        """The frontend reading the input, None for MLIR text."""
        return "ONNX" if self.import_onnx else "TFLite" if self.import_tflite else None


def pass_list() -> str:
    lines = ["tinyml passes:"]
    for entry in registered_passes():
        lines += _listed(entry)
    lines.append("tinyml pipelines (the compiler's stages):")
    for pipeline in registered_pipelines():
        lines += _listed(pipeline)
    lines.append("upstream MLIR passes are accepted by name, e.g. --canonicalize, --cse")
    return "\n".join(lines)


def _listed(entry) -> list[str]:
    """A pass's or a named pipeline's lines: its flag, summary and options."""
    lines = [f"  --{entry.name:<34} {entry.summary}"]
    for option in entry.options:
        spec = f"{option.name}=<{option.type.__name__}>"
        lines.append(f"      {spec:<32} {option.help} "
                     f"(default: {option.format(option.default)})")
    return lines


def parse_args(argv: Sequence[str]) -> Options | None:
    options, pass_flags, positional = Options(), [], []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help"):
            print(USAGE + "\n" + pass_list())
            return None
        if arg == "--list-passes":
            print(pass_list())
            return None
        if arg == "-o":
            if i + 1 >= len(argv):
                raise UsageError("-o needs a file name")
            options.output = argv[i + 1]
            i += 1
        elif name == "--pass-pipeline":
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError("--pass-pipeline needs a pipeline")
                value, i = argv[i + 1], i + 1
            options.pipeline_text = value
        elif arg == "--split-input-file":
            options.split_input_file = True
        elif arg == "--verify-diagnostics":
            options.verify_diagnostics = True
        elif arg == "--mlir-print-ir-after-all":
            options.print_ir_after_all = True
        elif arg == "--mlir-print-op-generic":
            options.generic = True
        elif arg == "--mlir-print-debuginfo":
            options.debug_info = True
        elif arg == "--import-onnx":
            options.import_onnx = True
        elif arg == "--tflite-streaming":
            options.tflite_streaming = True
        elif name == "--mlir-elide-elementsattrs-if-larger":
            try:
                options.elide_limit = int(value)
            except ValueError:
                raise UsageError(f"{name} expects a number, got '{value}'") from None
        elif arg.startswith("--"):
            pass_flags.append(f"{name[2:]}{{{value}}}" if eq else name[2:])
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option '{arg}'")
        else:
            positional.append(arg)
        i += 1
    if len(positional) > 1:
        raise UsageError(f"expected one input file, got {len(positional)}")
    if positional:
        options.input = positional[0]
    if options.pipeline_text is not None and pass_flags:
        raise UsageError("--pass-pipeline cannot be combined with individual pass flags")
    options.pipeline = Pipeline.parse(options.pipeline_text) if options.pipeline_text \
        else Pipeline(pass_flags)
    return options


def read_input(options: Options) -> tuple[str, bytes]:
    if options.input == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        with open(options.input, "rb") as f:
            return options.input, f.read()
    except OSError as error:
        raise UsageError(f"cannot open input file '{options.input}': {error.strerror}") from None


def chunks(source: str, split: bool) -> list[str]:
    """The input's chunks, each padded with blank lines so that diagnostics
    keep the line numbers of the whole file."""
    if not split:
        return [source]
    pieces, offset = [], 0
    lines = source.splitlines(keepends=True)
    current: list[str] = []
    for number, line in enumerate(lines):
        if line.strip().startswith(SPLIT_MARKER):
            pieces.append("\n" * offset + "".join(current))
            offset, current = number + 1, []
        else:
            current.append(line)
    pieces.append("\n" * offset + "".join(current))
    return pieces


def load_module(chunk: str | bytes, filename: str, context: ir.Context,
                options: Options) -> ir.Operation:
    """`chunk`: the model's bytes for a frontend (`run`), else MLIR text."""
    if options.import_onnx:
        from ..frontend.onnx import import_onnx_bytes
        assert isinstance(chunk, bytes)
        return import_onnx_bytes(chunk, filename, context).operation
    if options.import_tflite:
        from ..frontend.tflite import import_tflite_bytes
        assert isinstance(chunk, bytes)
        return import_tflite_bytes(chunk, filename, context,
                                   streaming=options.tflite_streaming).operation
    # Module.parse wraps top-level ops in an implicit module, as mlir-opt
    # does, but names the buffer "-"; diagnostics put the file name back.
    return ir.Module.parse(chunk, context).operation


def process_chunk(chunk, filename: str, options: Options) -> tuple[str | None, list]:
    """Returns the printed result (None on failure) and the diagnostics."""
    if not options.model_reader:
        traps = parser_traps(chunk)
        if traps:  # text the upstream parser would abort on, not report
            return None, [Reported("error", trap.line, trap.message,
                                   f"{filename}:{trap.line}:{trap.column}") for trap in traps]
    where = _chunk_name(chunk, filename, options)
    context = make_context()
    reported: list[Reported] = []

    def collect(diagnostic) -> bool:
        _flatten(diagnostic, filename, reported)
        return True

    with context, ir.Location.unknown(context):
        handler = context.attach_diagnostic_handler(collect)
        try:
            reader = f"the {options.model_reader} importer" if options.model_reader \
                else "the MLIR parser"
            phase(f"{reader} crashed on {where}")
            module = load_module(chunk, filename, context, options)
            phase(f"the MLIR verifier crashed on {where}")
            if not module.verify():
                return None, reported
            run_passes(module, options, where)
            phase(f"the MLIR printer crashed on {where}")
            return module.get_asm(large_elements_limit=options.elide_limit,
                                  print_generic_op_form=options.generic,
                                  enable_debug_info=options.debug_info), reported
        except ir.MLIRError as error:
            for diagnostic in error.error_diagnostics:
                _flatten(diagnostic, filename, reported)
            if not error.error_diagnostics:
                reported.append(Reported("error", None, error.message, filename))
            return None, reported
        finally:
            handler.detach()


def _chunk_name(chunk, filename: str, options: Options) -> str:
    """The input as a crash message names it: the file, and with
    --split-input-file the line where the chunk starts."""
    if not options.split_input_file or options.model_reader:  # a model is one chunk
        return f"'{filename}'"
    first_line = len(chunk) - len(chunk.lstrip("\n")) + 1  # chunks are padded with newlines
    return f"'{filename}' (the chunk at line {first_line})"


def run_passes(module: ir.Operation, options: Options, where: str) -> None:
    """Runs the pipeline with one pass manager per element, so that the
    crash guard can name the pass that was running."""
    for element in options.pipeline.elements:
        phase(f"pass '{element}' crashed on {where}")
        single = Pipeline()
        # Appended, not passed to Pipeline(): upstream text was checked once.
        single.elements.append(element)
        single.run(module, print_ir_after_all=options.print_ir_after_all)


def _flatten(diagnostic, filename: str, into: list[Reported]) -> None:
    location = diagnostic.location
    line = location.start_line if location.is_a_file() else None
    prefix = location_prefix(location)
    if prefix.startswith("-:"):
        prefix = filename + prefix[1:]
    into.append(Reported(severity_name(diagnostic.severity), line, diagnostic.message, prefix))
    for note in diagnostic.notes:
        # The verifier's dump of the failing op is noise next to the error,
        # which already points at the op's line.
        if not note.message.startswith("see current operation"):
            _flatten(note, filename, into)


def run(options: Options) -> int:
    filename, data = read_input(options)
    options.import_tflite = not options.import_onnx and (
        filename.endswith(".tflite") or is_tflite(data))
    if options.import_onnx or filename.endswith(".onnx") or options.import_tflite:
        options.import_onnx = not options.import_tflite
        if options.elide_limit is None:
            options.elide_limit = 16
        pieces: list = [data]
    else:
        try:
            source = data.decode()
        except UnicodeDecodeError:
            raise UsageError(f"{filename} is not a text MLIR file (for ONNX use --import-onnx)") \
                from None
        pieces = chunks(source, options.split_input_file)
    outputs, failed = [], False
    for chunk in pieces:
        printed, reported = process_chunk(chunk, filename, options)
        if options.verify_diagnostics:
            problems = check(parse_expectations(chunk), reported, filename)
            for problem in problems:
                print(problem, file=sys.stderr)
            failed |= bool(problems)
        else:
            for line in summary_lines(reported):
                print(line, file=sys.stderr)
            failed |= printed is None
        if printed is not None:
            outputs.append(printed)
    text = f"\n{SPLIT_MARKER}\n".join(outputs)
    if not failed or options.verify_diagnostics:
        write_output(options.output, text)
    return 1 if failed else 0


def summary_lines(reported: list[Reported]) -> list[str]:
    """One line per diagnostic that is not a note, except that after the
    first error only a count of the others is given: a failed chunk is one
    line. Notes join the line of the diagnostic they explain, in brackets
    (`--verify-diagnostics` still sees every note on its own)."""
    lines: list[str] = []
    first_error = note_target = None
    extra_errors = 0
    for diagnostic in reported:
        message = " ".join(diagnostic.message.split())
        if diagnostic.severity == "note":
            if note_target is not None:
                lines[note_target] += f" (note: {diagnostic.prefix}: {message})"
        elif diagnostic.severity == "error" and first_error is not None:
            extra_errors, note_target = extra_errors + 1, None
        else:
            lines.append(f"{diagnostic.prefix}: {diagnostic.severity}: {message}")
            note_target = len(lines) - 1
            if diagnostic.severity == "error":
                first_error = note_target
    if extra_errors and first_error is not None:
        lines[first_error] += f" ({extra_errors} more error{'s' if extra_errors > 1 else ''})"
    return lines


def write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        write_file(path, text)
    except OutputError as error:
        raise UsageError(str(error)) from None


def main(argv: list[str] | None = None) -> int:
    """The console entry point: the tool runs in a child process, so that a
    crash in upstream MLIR becomes one line and exit code 2."""
    return run_guarded("tinyml-opt", run_command, sys.argv[1:] if argv is None else argv)


def run_command(argv: Sequence[str]) -> int:
    try:
        phase("checking the pass pipeline crashed")
        options = parse_args(argv)
        status = 0 if options is None else run(options)
        sys.stdout.flush()
        return status
    except (UsageError, PipelineError, FrontendError) as error:
        print(f"tinyml-opt: error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return reader_gone()
    except Exception as error:  # a defect in tinyml itself, not bad input
        return internal_error("tinyml-opt", error)


if __name__ == "__main__":
    sys.exit(main())
