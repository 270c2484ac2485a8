"""Float ops written directly with the schema: SELECT, DYNAMIC_UPDATE_SLICE, RELU_0_TO_1, EMBEDDING_LOOKUP."""
from .common import case
from .builders import built_dynamic_update_slice, built_embedding_lookup, built_select, built_unary_float


case("select_rows", [(4, 3), (4, 3), (4,)], built=True)(built_select((4, 3)))
case("dynamic_update_slice", [(5, 6), (2, 3)], built=True)(built_dynamic_update_slice((5, 6), (2, 3), [4, 2]))
case("relu_0_to_1", [(2, 5, 7)], built=True)(built_unary_float("RELU_0_TO_1", (2, 5, 7)))
case("embedding_lookup", [(4, 5)], built=True)(built_embedding_lookup(4, 7, 5))
