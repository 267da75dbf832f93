"""Code in quiz texts: parsing, plain text, right-to-left preparation and the three renderers."""

from __future__ import annotations

from adapters.discord.rendering import mdx, split_text
from adapters.telegram.rendering import rich
from adapters.terminal import code_lines
from bot.markup import Block, Code, Text, one_line, parse, plain, unclosed_fence
from bot.quiz_loader import load_quiz_text
from bot.text_direction import LRI, PDI, RLM, paragraph, prepare

BLOCK = "Q?\n```python\nif a < b:\n\n    x = `y` & 1\n```\nDone."


def test_spans_inline_code_blocks_and_lone_backticks() -> None:
    assert parse("a `x` b") == (Text("a "), Code("x"), Text(" b"))
    assert parse("`` a`b ``") == (Code("a`b"),)
    assert parse("a ` b") == (Text("a ` b"),)
    assert parse(BLOCK) == (
        Text("Q?\n"),
        Block("if a < b:\n\n    x = `y` & 1", "python"),
        Text("\nDone."),
    )
    assert plain(BLOCK) == "Q?\nif a < b:\n\n    x = `y` & 1\nDone."
    assert one_line(BLOCK) == "Q? `if a < b:` … Done."


def test_unclosed_block_is_text_and_the_loader_says_so() -> None:
    assert unclosed_fence("Q?\n```py\nx = 1") and parse("```py\nx") == (Text("```py\nx"),)
    report = load_quiz_text(
        'id: q\ntitle: T\nquestions:\n  - id: a\n    text: "Q?\\n```py\\nx = 1"\n'
        "    correct: x\n    options:\n      - {id: x, text: 'A'}\n      - {id: y, text: 'B'}\n",
        "q.yaml",
        "q",
    )
    assert any("never closed" in str(error) for error in report.errors)


def test_right_to_left_marks_stay_out_of_code() -> None:
    text = prepare("کیا `x = f(a)` ہے؟\n```py\nprint(1)\n```\nجواب", "ur")
    assert f"{LRI}`x = f(a)`{PDI}" in text  # the whole inline code, backticks and all
    lines = paragraph(text, "ur").split("\n")
    assert lines[1:4] == ["```py", "print(1)", "```"]
    assert lines[0].startswith(RLM) and lines[4].startswith(RLM)


def test_telegram_html_escapes_code_and_keeps_it_out_of_bold() -> None:
    assert rich("Is `a<b` & c?", "b") == "<b>Is </b><code>a&lt;b</code><b> &amp; c?</b>"
    assert '<pre><code class="language-python">if a &lt; b:' in rich(BLOCK)


def test_discord_markdown_code_and_block_splits() -> None:
    assert mdx("*x* `a*b` `` `q` ``") == "\\*x\\* `a*b` `` `q` ``"
    code = "\n".join(f"    line_{i} = {i}" for i in range(200))
    pieces = split_text(mdx(f"Intro\n```py\n{code}\n```"), 1024)
    assert len(pieces) > 2 and all(len(p) <= 1024 and p.count("```") == 2 for p in pieces)
    inner = [p.split("```py\n", 1)[1].rsplit("\n```", 1)[0] for p in pieces]
    assert "\n".join(inner) == code  # indentation kept at every cut


def test_terminal_blocks_indented_and_never_wrapped() -> None:
    assert code_lines(BLOCK) == [
        ("Q?", False),
        ("    if a < b:", True),
        ("", True),
        ("        x = `y` & 1", True),
        ("Done.", False),
    ]


def test_terminal_say_wraps_text_but_not_code(monkeypatch) -> None:
    import io

    from adapters import terminal

    monkeypatch.setattr(terminal, "terminal_width", lambda stream: 20)  # a 20-column terminal
    out = io.StringIO()
    # say() needs neither an engine nor a player: None stands for both.
    player = terminal.TerminalPlayer(None, None, io.StringIO(), out)  # type: ignore[arg-type]
    long_line = "result = compute(alpha, beta, gamma, delta)"
    player.say(f"Which words wrap here and which stay?\n```py\n{long_line}\n```", "ur")
    lines = out.getvalue().split("\n")
    assert f"    {long_line}" in lines  # whole, unmarked, indented
    assert all(line.startswith(RLM) for line in lines[:2])  # the Urdu-direction text lines
