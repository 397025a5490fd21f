"""The pass registry: a tinyml pass is a small class with a name, a one-line
summary, typed options and an `apply` on the module. Named pipelines (the
compiler's stages) are registered beside the passes and expand, where a
pipeline names them, into the passes they stand for."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, TypeVar

from mlir import ir


class PassError(Exception):
    """A pass found IR it cannot handle. `location` says where."""

    def __init__(self, message: str, location: ir.Location | None = None):
        super().__init__(message)
        self.location = location


class PipelineError(ValueError):
    """A pipeline names an unknown pass or gives a bad option."""


_TYPE_NAMES = {int: "int", float: "float", bool: "bool", str: "string"}


@dataclass(frozen=True)
class Option:
    """A typed pass option. `low`/`high` bound numbers, `choices` strings."""

    name: str
    type: type[Any]
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None

    def convert(self, pass_name: str, value: Any) -> Any:
        where = f"option '{self.name}' of pass '{pass_name}'"
        if isinstance(value, str) and self.type is not str:
            value = self._parse_text(where, value)
        elif self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise PipelineError(f"{where} expects {_TYPE_NAMES[self.type]}, got {value!r}")
        if self.low is not None and value < self.low:
            raise PipelineError(f"{where} must be >= {self.low}, got {value}")
        if self.high is not None and value > self.high:
            raise PipelineError(f"{where} must be <= {self.high}, got {value}")
        if self.choices is not None and value not in self.choices:
            raise PipelineError(f"{where} must be one of {', '.join(self.choices)}, got '{value}'")
        return value

    def _parse_text(self, where: str, text: str) -> Any:
        try:
            if self.type is bool:
                return {"true": True, "1": True, "false": False, "0": False}[text.lower()]
            return self.type(text)
        except (KeyError, ValueError):
            raise PipelineError(
                f"{where} expects {_TYPE_NAMES[self.type]}, got '{text}'") from None

    def format(self, value: Any) -> str:
        return str(value).lower() if self.type is bool else str(value)


class Pass:
    """Base of tinyml passes. Subclasses set `name`, `summary`, `options` and
    implement `apply(module)`; option values are attributes named after the
    option with dashes turned into underscores."""

    name: ClassVar[str]
    summary: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, **values: Any):
        known = {option.name.replace("-", "_"): option for option in self.options}
        for key in values:
            if key.replace("-", "_") not in known:
                raise PipelineError(f"pass '{self.name}' has no option '{key}'")
        given = {key.replace("-", "_"): value for key, value in values.items()}
        self.values = {}
        for attr, option in known.items():
            value = option.convert(self.name, given[attr]) if attr in given else option.default
            self.values[option.name] = value
            setattr(self, attr, value)

    def apply(self, module: ir.Operation) -> None:
        raise NotImplementedError

    def __str__(self) -> str:
        changed = [f"{o.name}={o.format(self.values[o.name])}"
                   for o in self.options if self.values[o.name] != o.default]
        return f"{self.name}{{{' '.join(changed)}}}" if changed else self.name


_REGISTRY: dict[str, type[Pass]] = {}


PassClass = TypeVar("PassClass", bound=type[Pass])


def register(cls: PassClass) -> PassClass:
    """Class decorator: makes the pass known to pipelines and tinyml-opt."""
    if cls.name in _REGISTRY:
        raise ValueError(f"pass '{cls.name}' registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def lookup(name: str) -> type[Pass] | None:
    return _REGISTRY.get(name)


def pass_named(name: str) -> type[Pass]:
    """The pass registered as `name`, for a caller that knows it is."""
    return _REGISTRY[name]


def registered_passes() -> list[type[Pass]]:
    return sorted(_REGISTRY.values(), key=lambda cls: cls.name)


@dataclass(frozen=True)
class NamedPipeline:
    """A pipeline known by name (`tinyml-stage-fusion`): `build` makes its
    elements from the options' values, keyword arguments named after the
    options with dashes turned into underscores."""

    name: str
    summary: str
    options: tuple[Option, ...]
    build: Callable[..., Any]

    def expand(self, values: dict[str, Any]) -> Any:
        known = {option.name: option for option in self.options}
        for key in values:
            if key not in known:
                raise PipelineError(f"pipeline '{self.name}' has no option '{key}'")
        return self.build(**{key.replace("-", "_"): known[key].convert(self.name, value)
                             for key, value in values.items()})


_PIPELINES: dict[str, NamedPipeline] = {}


def register_pipeline(pipeline: NamedPipeline) -> None:
    """Makes a named pipeline known to pipelines and tinyml-opt."""
    if pipeline.name in _PIPELINES or pipeline.name in _REGISTRY:
        raise ValueError(f"pipeline '{pipeline.name}' registered twice")
    _PIPELINES[pipeline.name] = pipeline


def lookup_pipeline(name: str) -> NamedPipeline | None:
    return _PIPELINES.get(name)


def registered_pipelines() -> list[NamedPipeline]:
    return sorted(_PIPELINES.values(), key=lambda pipeline: pipeline.name)
