"""naf_bench.generate.seeds: an item's seed is a 63-bit hash of its coordinates (their types included), never
a sum, and its random stream is the one that seed starts."""

import random

from naf_bench.generate.seeds import item_rng, item_seed


def test_a_seed_is_a_fixed_63_bit_hash_of_the_coordinates():
    assert item_seed(0, "main", "test", "control", 0) == 6460781501999559376
    assert item_seed(0, "main", "test", "control", 0) == item_seed(0, "main", "test", "control", 0)
    assert all(0 <= item_seed(0, "main", "test", "control", i) < 2**63 for i in range(200))


def test_neighbouring_coordinates_do_not_give_neighbouring_seeds():
    first, second = item_seed(0, "main", "test", "control", 0), item_seed(0, "main", "test", "control", 1)
    assert second - first not in (-1, 1)
    # ``seed + index`` would make these two the same item: root 1 index 0 and root 0 index 1
    assert item_seed(1, "main", "test", "control", 0) != second
    assert item_seed(1) != item_seed("1")  # coordinates are hashed by repr: a number is not its text


def test_the_items_random_stream_is_the_one_its_seed_starts():
    coordinates = (3, "hard", "train", "cnf", 7)
    assert item_rng(*coordinates).random() == random.Random(item_seed(*coordinates)).random()
    assert item_rng(*coordinates).random() != item_rng(3, "hard", "train", "cnf", 8).random()
