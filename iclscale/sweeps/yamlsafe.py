"""YAML from a user, read with limits, and the line and column of every key for messages.

PyYAML's safe loader builds whatever a file says: nested anchors ("billion laughs") share nodes
that expand exponentially as soon as anything walks or prints the result, deep nesting overflows
Python's recursion limit, a duplicate key silently keeps its last value, and a 400-digit integer
only fails later (OverflowError). So a document is checked in three passes before it is built:

1. bytes: at most MAX_BYTES, valid UTF-8 (the offset of a bad byte becomes a line and column);
2. events (PyYAML's parser is a state machine, not recursive): nesting at most MAX_DEPTH;
3. nodes: the size of the document as it would be expanded, values and characters, counted once
   per shared node (linear time, however large the expansion) and refused past MAX_NODES values or
   MAX_EXPANDED_CHARS characters; recursive aliases, duplicate or
   non-scalar keys and integers past float range refused, each at its line and column.

`load_yaml` returns the built value and `Marks`: where each key path (``grid.L``, ``cases[0]``)
is written, so that a message about a key can point at its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from iclscale.errors import UserError  # not iclscale.errors: the store reader (and so analysis) needs no trainer

MAX_BYTES = 1_000_000
MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_EXPANDED_CHARS = 1_000_000  # as MAX_BYTES: what a file may say once its aliases are expanded
MAX_INT_DIGITS = 309  # 1.8e308 (2**1024), past the largest float, has 309 digits
INT_TAG = "tag:yaml.org,2002:int"
MERGE_TAG = "tag:yaml.org,2002:merge"
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Marks:
    """Where each key path of a document is written: ``"grid.L" -> (line, column)``, 1-based."""

    places: dict[str, tuple[int, int]] = field(default_factory=dict)
    overrides: dict[str, str] = field(default_factory=dict)
    """Key paths set on the command line (`key=value`), and the text that set each."""

    def find(self, key: str) -> str | None:
        """A place for a message about `key` (or the nearest enclosing key): 'line 3, column 5'."""
        while key:
            if key in self.overrides:
                return f"override {self.overrides[key]!r}"
            if key in self.places:
                line, column = self.places[key]
                return f"line {line}, column {column}"
            key = re.sub(r"(\.[^.\[\]]*|\[\d+\])$", "", key) if re.search(r"[.\[]", key) else ""
        return None


def load_yaml(data: bytes, where: str) -> tuple[Any, Marks]:
    """Parse a YAML document within the limits above; UserError (one line) for anything else."""
    if len(data) > MAX_BYTES:
        raise UserError(f"{where}: larger than {MAX_BYTES:,} bytes; a sweep file is a short text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _position(data, error.start)
        raise UserError(
            f"{where}, line {line}, column {column}: not UTF-8 text (byte 0x{data[error.start]:02x})"
        ) from None
    try:
        _check_depth(text, where)  # also reads every token: reader and scanner errors come from here
        root = yaml.compose(text, Loader=Loader)
    except yaml.YAMLError as error:
        raise UserError(f"{where}{_yaml_place(error)}: not valid YAML: {_problem(error)}") from None
    if root is None:
        return None, Marks()
    _Checker(where).size(root)
    marks = Marks()
    _record_marks(root, "", marks)
    try:
        return yaml.load(text, Loader=Loader), marks
    except (yaml.YAMLError, ValueError, RecursionError) as error:
        raise UserError(f"{where}{_yaml_place(error)}: not valid YAML: {_problem(error)}") from None


def parse_value(text: str, where: str) -> Any:
    """One value written on the command line (`grid.L=[0.1, 1]`), read as YAML with the same limits."""
    value, _ = load_yaml(text.encode(), where)
    return value


def _check_depth(text: str, where: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                line, column = event.start_mark.line + 1, event.start_mark.column + 1
                raise UserError(f"{where}, line {line}, column {column}: nested deeper than {MAX_DEPTH} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _Checker:
    """Walks composed nodes once each (aliases are shared nodes), counting the expanded size."""

    def __init__(self, where: str):
        self.where = where
        self.sizes: dict[int, int] = {}
        self.open: set[int] = set()

    def refuse(self, node: yaml.Node, problem: str) -> None:
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        raise UserError(f"{self.where}, line {line}, column {column}: {problem}")

    def size(self, node: yaml.Node) -> tuple[int, int]:
        """(values, characters) of the node as expanded: both capped, so that neither a node count nor
        one long text repeated by aliases can make the built value (or its frozen copy) huge."""
        key = id(node)
        if key in self.sizes:
            return self.sizes[key]
        if key in self.open:
            self.refuse(node, "an alias refers to the collection that contains it (a recursive anchor)")
        self.open.add(key)
        total, chars = 1, 0
        if isinstance(node, yaml.ScalarNode):
            chars = len(node.value)
            if node.tag == INT_TAG and _past_float_range(node):
                self.refuse(node, f"an integer of {len(node.value):,} characters is past float range")
        else:
            children = node.value if isinstance(node, yaml.SequenceNode) else [n for kv in node.value for n in kv]
            if isinstance(node, yaml.MappingNode):
                self.check_keys(node)
            for child in children:
                n, c = self.size(child)
                total, chars = total + n, chars + c
        self.open.discard(key)
        self.sizes[key] = (total, chars)
        if total > MAX_NODES:
            self.refuse(node, f"expands to more than {MAX_NODES:,} values (nested anchors and aliases?)")
        if chars > MAX_EXPANDED_CHARS:
            self.refuse(node, f"expands to more than {MAX_EXPANDED_CHARS:,} characters (a text repeated by aliases?)")
        return total, chars

    def check_keys(self, node: yaml.MappingNode) -> None:
        seen: dict[tuple[str, str], yaml.Node] = {}
        for key, _ in node.value:
            if key.tag == MERGE_TAG:
                continue
            if not isinstance(key, yaml.ScalarNode):
                self.refuse(key, "a key must be a plain name, not a list or mapping")
            if (key.tag, key.value) in seen:
                first = seen[(key.tag, key.value)].start_mark.line + 1
                self.refuse(key, f"key {key.value[:60]!r} appears twice in one mapping (first on line {first})")
            seen[(key.tag, key.value)] = key


def _past_float_range(node: yaml.ScalarNode) -> bool:
    """Whether an integer (decimal, 0x hex, 0o/0 octal, 0b binary or 1:30 sexagesimal) is at least 2**1024:
    its value, not its length, decides, so that a frozen sweep writes only integers its reader takes."""
    if len(node.value) > 4 * MAX_INT_DIGITS:  # 1,236 characters: past range in every base YAML allows
        return True
    try:
        value = yaml.constructor.SafeConstructor().construct_yaml_int(node)
    except (ValueError, yaml.YAMLError):
        return False  # not an integer after all: the loader says so
    return abs(value).bit_length() > 1024


def _record_marks(node: yaml.Node, path: str, marks: Marks) -> None:
    """Key paths of the document (bounded: the checker has capped the expanded size)."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != MERGE_TAG:
                child = f"{path}.{key.value}" if path else key.value
                marks.places.setdefault(child, (key.start_mark.line + 1, key.start_mark.column + 1))
                _record_marks(value, child, marks)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = f"{path}[{i}]"
            marks.places.setdefault(child, (item.start_mark.line + 1, item.start_mark.column + 1))
            _record_marks(item, child, marks)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _yaml_place(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    return f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _problem(error: BaseException) -> str:
    problem = getattr(error, "problem", None) or str(error).strip().splitlines()[0] or type(error).__name__
    context = getattr(error, "context", None)
    return f"{problem} ({context})" if context else problem


def yaml_number(p, value: Any) -> Any:
    """YAML 1.1 reads `1e-3` (no dot) as text; take it as the number it was meant to be."""
    if p.type is float and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value
