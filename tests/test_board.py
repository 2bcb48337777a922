"""Board geometry (RULES.md §1): cell names, edges and neighbourhoods; the map model on its board."""

from __future__ import annotations

import pytest

from mapgen.board import FULL, TRAINING, CellError
from mapgen.terrain import TERRAINS, Terrain, parse_terrain


def names(board, cells) -> set[str]:
    return {board.name(i) for i in cells}


def test_full_board_names_rows_a_to_g_and_columns_1_to_7():
    assert FULL.size == 49
    assert FULL.names[:8] == ("A1", "A2", "A3", "A4", "A5", "A6", "A7", "B1")
    assert FULL.names[-1] == "G7"
    assert FULL.name(FULL.index("E3")) == "E3"
    assert FULL.rc(FULL.index("E3")) == (4, 2)
    assert FULL.row_letters == "ABCDEFG"
    assert FULL.col_numbers == (1, 2, 3, 4, 5, 6, 7)


def test_training_board_keeps_7x7_names():
    assert TRAINING.size == 25
    assert TRAINING.names[0] == "B3" and TRAINING.names[-1] == "F7"
    assert TRAINING.row_letters == "BCDEF"
    assert TRAINING.col_numbers == (3, 4, 5, 6, 7)
    assert TRAINING.index("D5") == 12  # its centre


def test_cell_names_are_case_insensitive_and_trimmed():
    assert FULL.index(" e3 ") == FULL.index("E3")


@pytest.mark.parametrize(
    ("board", "name", "message"),
    [
        (TRAINING, "A1", "cell A1 is off the board (B3 to F7)"),
        (TRAINING, "G5", "cell G5 is off the board (B3 to F7)"),
        (TRAINING, "B2", "cell B2 is off the board (B3 to F7)"),
        (FULL, "A0", "cell A0 is off the board (A1 to G7)"),
        (FULL, "H1", "cell H1 is off the board (A1 to G7)"),
        (FULL, "A10", "cell A10 is off the board (A1 to G7)"),
        (FULL, "A²", "'A²' is not a cell name (a row letter and a column number, like E3)"),
        (FULL, "E", "'E' is not a cell name (a row letter and a column number, like E3)"),
        (FULL, "3E", "'3E' is not a cell name (a row letter and a column number, like E3)"),
    ],
)
def test_bad_cell_names(board, name, message):
    with pytest.raises(CellError) as caught:
        board.index(name)
    assert str(caught.value) == message


def test_orthogonal_diagonal_and_king_neighbours_in_the_middle():
    e3 = FULL.index("E3")
    assert names(FULL, FULL.neighbours(e3, "orthogonal")) == {"D3", "E4", "F3", "E2"}
    assert names(FULL, FULL.neighbours(e3, "diagonal")) == {"D4", "F4", "F2", "D2"}
    assert names(FULL, FULL.neighbours(e3, "king")) == {"D2", "D3", "D4", "E2", "E4", "F2", "F3", "F4"}


def test_neighbours_are_listed_north_east_south_west():
    assert [FULL.name(j) for j in FULL.neighbours(FULL.index("E3"), "orthogonal")] == ["D3", "E4", "F3", "E2"]


def test_only_cells_on_the_board_are_neighbours():
    a1 = FULL.index("A1")
    assert names(FULL, FULL.neighbours(a1, "orthogonal")) == {"A2", "B1"}
    assert names(FULL, FULL.neighbours(a1, "diagonal")) == {"B2"}
    assert names(FULL, FULL.neighbours(a1, "king")) == {"A2", "B1", "B2"}
    d7 = FULL.index("D7")
    assert len(FULL.neighbours(d7, "orthogonal")) == 3
    assert len(FULL.neighbours(d7, "king")) == 5


def test_training_neighbours_stop_at_its_own_edge():
    b3 = TRAINING.index("B3")
    assert names(TRAINING, TRAINING.neighbours(b3, "king")) == {"B4", "C3", "C4"}


def test_two_diagonal_steps():
    c3 = FULL.index("C3")
    assert names(FULL, FULL.neighbours(c3, "diagonal2")) == {"A1", "A5", "E5", "E1"}
    assert names(FULL, FULL.neighbours(FULL.index("A1"), "diagonal2")) == {"C3"}
    assert names(FULL, FULL.neighbours(FULL.index("D4"), "diagonal2")) == {"B2", "B6", "F6", "F2"}


def test_neighbourhoods_are_symmetric():
    for board in (FULL, TRAINING):
        for hood in ("orthogonal", "diagonal", "king", "diagonal2"):
            table = board.hood(hood)
            for i in range(board.size):
                for j in table[i]:
                    assert i in table[j], (board.name(i), board.name(j), hood)


def test_edges_and_rings():
    assert {FULL.name(i) for i in range(FULL.size) if FULL.is_edge(i)} == (
        {f"A{c}" for c in range(1, 8)}
        | {f"G{c}" for c in range(1, 8)}
        | {f"{r}1" for r in "ABCDEFG"}
        | {f"{r}7" for r in "ABCDEFG"}
    )
    ring1 = {FULL.name(i) for i in range(FULL.size) if FULL.edge_distance(i) == 1}
    assert ring1 == {"B2", "B3", "B4", "B5", "B6", "C2", "C6", "D2", "D6", "E2", "E6", "F2", "F3", "F4", "F5", "F6"}
    assert FULL.edge_distance(FULL.index("D4")) == 3
    # "Edge" on Training is the edge of the 5x5 board.
    assert TRAINING.is_edge(TRAINING.index("B5")) and TRAINING.is_edge(TRAINING.index("D3"))
    assert not TRAINING.is_edge(TRAINING.index("C4"))
    assert TRAINING.edge_distance(TRAINING.index("D5")) == 2


def test_rows_columns_and_column_7():
    assert [FULL.name(i) for i in FULL.rows[2]] == ["C1", "C2", "C3", "C4", "C5", "C6", "C7"]
    assert [FULL.name(i) for i in FULL.cols[0]] == ["A1", "B1", "C1", "D1", "E1", "F1", "G1"]
    assert [TRAINING.name(i) for i in TRAINING.col_cells(7)] == ["B7", "C7", "D7", "E7", "F7"]
    assert TRAINING.row_label(0) == "B" and TRAINING.col_label(0) == "3"
    assert FULL.at(7, 0) is None and FULL.at(0, -1) is None and FULL.at(6, 6) == 48


def test_terrain_codes():
    assert len(TERRAINS) == 17
    assert Terrain.from_code("pF") is Terrain.PETRIFIED_FOREST
    assert Terrain.PETRIFIED_FOREST.label == "Petrified Forest"
    assert Terrain.FLORA_CREATURE.label == "Flora creature"
    assert Terrain.MUSHROOM_FIELD.label == "Mushroom Field"
    assert [t.index for t in TERRAINS] == list(range(17))
    assert {t.code for t in TERRAINS} == {
        "Fo", "Wo", "Wa", "Mu", "Ro", "Sk", "Ti", "Fi", "Hi", "Vi", "Ft", "Pf", "Sa", "Fc", "Fz", "Mf", "Ma",
    }  # fmt: skip
    with pytest.raises(ValueError, match="unknown terrain code 'Qq'"):
        parse_terrain("Qq")


# --- the map model on its board ------------------------------------------------------------------


def test_hide_unreveals_cells_and_their_hill_numbers(example):
    m = example("fauna-201")
    g5, a3 = m.board.index("G5"), m.board.index("A3")
    state = m.hide([g5, a3])
    assert state.unrevealed() == [a3, g5]
    assert not state.complete and m.complete
    assert g5 not in state.hills and g5 in m.hills


def test_with_cells_keeps_numbers_only_on_hills(example):
    m = example("fauna-201")
    g5 = m.board.index("G5")
    cells = list(m.cells)
    cells[g5] = Terrain.WATER
    changed = m.with_cells(cells)
    assert g5 not in changed.hills
    assert changed.hills == {i: n for i, n in m.hills.items() if i != g5}


def test_a_quantity_has_its_noun_in_the_right_number():
    from mapgen.terrain import quantity

    assert [quantity(n, "cell") for n in (0, 1, 2)] == ["0 cells", "1 cell", "2 cells"]
    assert quantity(1, "guess", "guesses") == "1 guess" and quantity(3, "guess", "guesses") == "3 guesses"


def test_a_big_count_reads_in_words_never_in_e_notation():
    """Players read "about 1.69e+22 completions" as noise: digits up to ten million, then three significant figures
    in words up to 10^15, then a power of ten with a superscript exponent; rounded before the words are chosen."""
    from mapgen.terrain import big_count

    said = [big_count(n) for n in (0, 709, 9_999_999, 10_000_000, 11_903_456, 2_980_000_000, 4_100_000_000_000)]
    assert said == ["0", "709", "9,999,999", "10 million", "11.9 million", "2.98 billion", "4.1 trillion"]
    assert big_count(999_960_000) == "1 billion" and big_count(999_990_000_000_000) == "1 × 10¹⁵"
    assert big_count(16_900_000_000_000_000_000_000) == "1.69 × 10²²"
    assert big_count(10**400) == "1 × 10⁴⁰⁰"  # an int past a float's range
    assert big_count(33_700_000_000_000_000_000_000_000_000, plain=True) == "3.37 x 10^28"


def test_a_big_count_on_a_stream_that_cannot_write_superscripts_is_ascii(monkeypatch):
    """On a stdout whose encoding has no superscript 4 or no × (PYTHONIOENCODING=latin-1, cp1252) printing the
    count must not fail with UnicodeEncodeError: it falls back to "x 10^N"."""
    import io
    import sys

    from mapgen.terrain import big_count

    out = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    monkeypatch.setattr(sys, "stdout", out)
    said = big_count(4 * 10**46)
    assert said == "4 x 10^46"
    out.write(said)  # no UnicodeEncodeError
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    assert big_count(4 * 10**46) == "4 × 10⁴⁶"
