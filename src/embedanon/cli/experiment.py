"""``embedanon experiment run CONFIG.yaml``: utility against privacy on the user's own corpora."""

from __future__ import annotations

import signal
from typing import Annotated

import typer

from .._atomic import Terminated
from .common import fail, handle_errors
from .convention import Command, Group, examples

EXAMPLES = examples("embedanon experiment run examples/experiment.yaml --quick",
                    "embedanon experiment run examples/experiment.yaml --jobs 2")

app = typer.Typer(
    help="Utility against privacy experiments on your own corpora (a YAML config).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=Group,
    epilog=EXAMPLES,
)


@app.command("run", cls=Command, epilog=EXAMPLES)
@handle_errors
def run_command(
    config_path: Annotated[str, typer.Argument(metavar="CONFIG", help="Experiment YAML file.")],
    quick: Annotated[
        bool,
        typer.Option("--quick", help="Small version (config's 'quick' section); writes to OUTPUT-quick."),
    ] = False,
    jobs: Annotated[int, typer.Option(help="Worker processes for anonymization.", metavar="N")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")] = False,
) -> None:
    """Anonymize each dataset with each mechanism value and seed, train the classifiers, measure.

    Writes results.csv, results.md and plots under the config's output directory; finished cells
    are kept in OUTPUT/cells, so an interrupted run resumes where it stopped.
    """
    from ..experiments import load_config, run_experiment

    config = load_config(config_path)
    if quick:
        config = config.quickened()

    def say(line: str) -> None:
        if not quiet:
            typer.echo(line, err=True)

    resume = "finished cells are kept, run the same command to resume"
    try:
        run_experiment(config, jobs=jobs, progress=say)
    except KeyboardInterrupt:
        raise fail(f"interrupted; {resume}", 130) from None
    except Terminated as exc:  # else handle_errors' "no output was written": cells were
        raise fail(f"terminated by {signal.Signals(exc.signum).name}; {resume}", 128 + exc.signum) from None
