"""The command line's flags made from a contract model: one flag a field, spelled the CLI's way.

A field's flag is its name with dashes (`max_tokens`: `--max-tokens`), but for those SPELLING
names; a list is given one item a flag, repeated, under the singular (`sessions`: `--session`);
a yes-or-no field is a switch; a time reads as `--at` does. The help is the field's description,
the default the model's (the flags a user leaves out are not sent, so the model fills them in).
"""

import argparse
import types
from datetime import datetime
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from graphmem.cli.times import moment
from graphmem.contract import OptionsT, options_of

SPELLING = {"k": "-k", "budget_seconds": "--budget"}
"""Fields whose flag is not their name with dashes."""
UNSAID_DEFAULTS: tuple[object, ...] = (None, False, "", [], PydanticUndefined)
"""Defaults a flag's help does not show: they say nothing (or there is none)."""
GIVEN_ELSEWHERE = {"query", "at"}
"""Fields a command takes its own way, no flag made: the query as its argument, the time as the
shared --at."""


def flag_of(name: str, field: FieldInfo) -> str:
    """The flag of a field: SPELLING's, else its name (a list's in the singular) with dashes."""
    if name in SPELLING:
        return SPELLING[name]
    singular = name.removesuffix("s") if _item_type(field) is not None else name
    return "--" + singular.replace("_", "-")


def add_options(command: argparse.ArgumentParser, model: type[BaseModel]) -> None:
    """Add a flag for each field of the model that the command does not take its own way."""
    for name, field in model.model_fields.items():
        if name in GIVEN_ELSEWHERE:
            continue
        described = field.description or name
        if field.default not in UNSAID_DEFAULTS:
            described += f" (default {field.default})"
        item = _item_type(field)
        flag = flag_of(name, field)
        shown = flag.lstrip("-").replace("-", "_").upper()
        if item is not None:
            command.add_argument(
                flag,
                dest=name,
                action="append",
                type=_reader(item),
                metavar=shown,
                help=f"{described}; one a flag, repeatable",
                default=argparse.SUPPRESS,
            )
        elif _plain_type(field.annotation) is bool:
            command.add_argument(
                flag, dest=name, action="store_true", help=described, default=argparse.SUPPRESS
            )
        else:
            command.add_argument(
                flag,
                dest=name,
                type=_reader(_plain_type(field.annotation)),
                metavar=shown,
                help=described,
                default=argparse.SUPPRESS,
                required=field.is_required(),
            )


def options_given(arguments: argparse.Namespace, model: type[BaseModel]) -> dict[str, Any]:
    """The model's fields the command line gave, by name (those left out are not there)."""
    given = vars(arguments)
    return {name: given[name] for name in model.model_fields if name in given}


def parsed(arguments: argparse.Namespace, model: type[OptionsT]) -> OptionsT:
    """The model of what the command line gave, the model's defaults for the rest."""
    return options_of(model, **options_given(arguments, model))


def _plain_type(annotation: Any) -> Any:
    """The type a field holds, without None, Annotated's notes, or a union's models."""
    if get_origin(annotation) is Annotated:
        return _plain_type(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        members = [member for member in get_args(annotation) if member is not type(None)]
        plain = [_plain_type(member) for member in members]
        simple = [
            kind for kind in plain if not isinstance(kind, type) or not issubclass(kind, BaseModel)
        ]
        return simple[0]
    return annotation


def _item_type(field: FieldInfo) -> Any | None:
    """What a list field holds, or None for a field that is no list."""
    kind = _plain_type(field.annotation)
    return get_args(kind)[0] if get_origin(kind) is list else None


def _reader(kind: Any) -> Any:
    """How a flag's text is read into the type a field holds."""
    return moment if kind is datetime else kind
