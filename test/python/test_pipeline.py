"""The pass registry and the pipeline builder."""
import subprocess

import pytest
from mlir import ir

import tinyml
from tinyml.pipeline.registry import Option, Pass, PassError, PipelineError, lookup, registered_passes
from tinyml import Pipeline


class ScaleCheck(Pass):
    # Not registered: built directly, to exercise option handling alone.
    name = "test-scale-check"
    summary = "Fails on functions named 'bad'"
    options = (
        Option("factor", float, 1.0, "a scale", low=0.0, high=8.0),
        Option("max-ops", int, 4, "a bound", low=1),
        Option("strict", bool, False, "a flag"),
        Option("mode", str, "fast", "a choice", choices=("fast", "small")),
    )

    def apply(self, module):
        for op in module.regions[0].blocks[0].operations:
            if ir.StringAttr(op.attributes["sym_name"]).value == "bad":
                raise PassError("function 'bad' is not allowed", op.location)


def test_every_registered_pass_is_documented():
    passes = registered_passes()
    assert "tinyml-simplify" in [p.name for p in passes]
    for cls in passes:
        assert cls.name.startswith("tinyml-")
        assert cls.summary and "\n" not in cls.summary
        for option in cls.options:
            assert option.help
            assert option.convert(cls.name, option.default) == option.default


def test_option_defaults_and_conversion():
    p = ScaleCheck(factor="2.5", max_ops="3", strict="true", mode="small")
    assert (p.factor, p.max_ops, p.strict, p.mode) == (2.5, 3, True, "small")
    assert str(p) == "test-scale-check{factor=2.5 max-ops=3 strict=true mode=small}"
    assert str(ScaleCheck()) == "test-scale-check"


@pytest.mark.parametrize("options, message", [
    ({"factor": "9"}, "option 'factor' of pass 'test-scale-check' must be <= 8.0, got 9.0"),
    ({"factor": "-1"}, "must be >= 0.0"),
    ({"max_ops": "many"}, "option 'max-ops' of pass 'test-scale-check' expects int, got 'many'"),
    ({"max_ops": 2.5}, "expects int"),
    ({"strict": "maybe"}, "expects bool"),
    ({"mode": "slow"}, "must be one of fast, small, got 'slow'"),
    ({"nope": 1}, "pass 'test-scale-check' has no option 'nope'"),
])
def test_bad_options_are_rejected(options, message):
    with pytest.raises(PipelineError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ScaleCheck(**options)


def test_pipeline_text_round_trips():
    text = "builtin.module(tinyml-simplify,canonicalize{max-iterations=3},func.func(cse,canonicalize))"
    pipeline = Pipeline.parse(text)
    assert str(pipeline) == text
    assert str(Pipeline.parse(str(pipeline))) == text
    assert len(pipeline) == 3
    assert isinstance(pipeline.elements[0], lookup("tinyml-simplify"))


def test_builder_composes_tinyml_and_upstream_passes():
    pipeline = Pipeline().add("tinyml-simplify").add("canonicalize", **{"max-iterations": 2}) \
        .add("func.func(cse)")
    assert str(pipeline) == "builtin.module(tinyml-simplify,canonicalize{max-iterations=2},func.func(cse))"
    # The printed pipeline is accepted by the upstream parser as well, once
    # the Python passes are known to it by name, and by tinyml-opt.
    result = subprocess.run(["tinyml-opt", f"--pass-pipeline={pipeline}", "-"],
                            input="func.func @f() { return }", capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "func.func @f()" in result.stdout


def test_pipeline_runs_and_removes_dead_ops():
    context = tinyml.make_context()
    module = ir.Module.parse("""
      func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
        %0 = tinyml.relu %a : tensor<4xf32>
        return %a : tensor<4xf32>
      }""", context)
    Pipeline.parse("builtin.module(tinyml-simplify)").run(module)
    assert "tinyml.relu" not in str(module)


def test_pass_error_becomes_a_located_diagnostic():
    context = tinyml.make_context()
    module = ir.Module.parse("func.func @bad() { return }", context)
    with pytest.raises(ir.MLIRError) as info:
        Pipeline([ScaleCheck()]).run(module)
    messages = [d.message for d in info.value.error_diagnostics]
    assert "test-scale-check: function 'bad' is not allowed" in messages


@pytest.mark.parametrize("text, message", [
    ("tinyml-unknown", "unknown pass 'tinyml-unknown'"),
    ("not-a-pass", "invalid pass or pipeline 'not-a-pass'"),
    ("tinyml-simplify{x=1}", "pass 'tinyml-simplify' has no option 'x'"),
    ("func.func(cse", "unbalanced brackets"),
])
def test_bad_pipelines_are_rejected(text, message):
    with pytest.raises(PipelineError, match=message):
        Pipeline.parse(text)
