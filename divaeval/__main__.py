"""``python -m divaeval`` and the ``divaeval`` command (:func:`entry_point`)."""

from divaeval.heap import prepare_command_heap


def entry_point() -> None:
    """Run the command line in a process whose heap is prepared first
    (:func:`~divaeval.heap.prepare_command_heap`), so that what numpy and divaeval allocate
    from their import on comes from it."""
    prepare_command_heap()
    from divaeval.cli.app import entry_point as run_command  # (imports numpy: after the heap)

    run_command()


if __name__ == "__main__":
    entry_point()
