"""The command-line tests' fixture: every parser the command line builds."""

import argparse

import pytest


def parsers(parser, command=""):
    """(command, parser) for ``parser`` and every subcommand's."""
    yield command, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            names = {choice.dest for choice in action._choices_actions}  # an old spelling is its command's parser
            for name, sub in action.choices.items():
                if name in names:
                    yield from parsers(sub, f"{command} {name}".strip())


@pytest.fixture
def cli_parsers():
    """[(command, parser)] for the top-level parser ("") and every subcommand's ("leaderboard new-set", ...)."""
    from naf_bench.cli import build_parser

    return list(parsers(build_parser()))
