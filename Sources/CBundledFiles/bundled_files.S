// The files of models/ that the library loads (the registry and the digital ink models), compiled into the binary
// so that a vision-cli or a program using LiteTasks copied anywhere finds them without the checkout.
//
// `.incbin` finds the files through the target's header search path (Package.swift: `-I models/`). SwiftPM does
// not know about that dependency: after models/ changes (retraining, tools/ink/register.py, a new lexicon), touch
// this file or the next build keeps the old bytes. tools/ink's scripts touch it when they write into models/, and
// Tests/LiteTasksTests/BundledFilesTests.swift fails on a stale build (the bundled bytes differ from models/).
//
// To bundle another file: add a FILE line below and a `"name"` to the same place in the table; the registry's
// `bundled` entries must all be here (BundledFilesTests checks it).
//
// ELF only (Linux, the BSDs), 64-bit only (the table holds 8-byte pointers and sizes, lite_bundled_file on LP64).
// Mach-O and COFF spell sections differently (`.section __DATA,__const`, no `.type`, a leading underscore on C
// symbols); there this file assembles to nothing and lite_bundled_files() reports no files (bundled_files.c), so
// the registry and the ink models are then not found.

#if defined(__ELF__) && defined(__LP64__)

// One bundled file: its bytes at lite_bundled_<id>, aligned to 64 bytes like ModelBytes(copying:), so that a
// .tflite's tensor buffers are as aligned in memory as in the file; its name at lite_bundled_<id>_name.
#define FILE(id, path)                      \
    .section .rodata.lite_bundled, "a", @progbits; \
    .balign 64;                             \
lite_bundled_##id:                          \
    .incbin path;                           \
lite_bundled_##id##_end:                    \
    .section .rodata.lite_bundled_names, "a", @progbits; \
lite_bundled_##id##_name:                   \
    .asciz path

FILE(registry, "registry.json")
FILE(ink_en, "ink-en.tflite")
FILE(ink_en_characters, "ink-en.characters.tflite")
FILE(ink_en_lexicon, "ink-en.lexicon.tsv")
FILE(ink_latin, "ink-latin.tflite")
FILE(ink_latin_alphabet, "ink-latin.alphabet.txt")
FILE(ink_es_lexicon, "ink-es.lexicon.tsv")
FILE(ink_es_charset, "ink-es.charset.txt")
FILE(ink_tr_lexicon, "ink-tr.lexicon.tsv")
FILE(ink_tr_charset, "ink-tr.charset.txt")
FILE(ink_de_lexicon, "ink-de.lexicon.tsv")
FILE(ink_de_charset, "ink-de.charset.txt")
FILE(ink_fr_lexicon, "ink-fr.lexicon.tsv")
FILE(ink_fr_charset, "ink-fr.charset.txt")
FILE(ink_pt_lexicon, "ink-pt.lexicon.tsv")
FILE(ink_pt_charset, "ink-pt.charset.txt")
FILE(ink_it_lexicon, "ink-it.lexicon.tsv")
FILE(ink_it_charset, "ink-it.charset.txt")
FILE(ink_vi_lexicon, "ink-vi.lexicon.tsv")
FILE(ink_vi_charset, "ink-vi.charset.txt")
FILE(ink_ja, "ink-ja.tflite")
FILE(ink_ja_classes, "ink-ja.classes.txt")
FILE(ink_ja_lm, "ink-ja.lm.arpa")
FILE(ink_zh, "ink-zh.tflite")
FILE(ink_zh_classes, "ink-zh.classes.txt")
FILE(ink_zh_hans_lm, "ink-zh-Hans.lm.arpa")
FILE(ink_zh_hant_lm, "ink-zh-Hant.lm.arpa")
FILE(ink_shapes, "ink-shapes.tflite")
FILE(ink_shapes_geometry, "ink-shapes.geometry.tflite")
FILE(ink_shapes_labels, "ink-shapes.labels.txt")

// A row of lite_bundled_table: { name, bytes, size } as lite_bundled_file lays it out on LP64.
#define ROW(id)                             \
    .quad lite_bundled_##id##_name;         \
    .quad lite_bundled_##id;                \
    .quad lite_bundled_##id##_end - lite_bundled_##id

    // Pointers need relocating at load in a position-independent executable: .data.rel.ro, read-only after that.
    .section .data.rel.ro.lite_bundled, "aw", @progbits
    .balign 8
    .globl lite_bundled_table
    .hidden lite_bundled_table
    .type lite_bundled_table, @object
lite_bundled_table:
    ROW(registry)
    ROW(ink_en)
    ROW(ink_en_characters)
    ROW(ink_en_lexicon)
    ROW(ink_latin)
    ROW(ink_latin_alphabet)
    ROW(ink_es_lexicon)
    ROW(ink_es_charset)
    ROW(ink_tr_lexicon)
    ROW(ink_tr_charset)
    ROW(ink_de_lexicon)
    ROW(ink_de_charset)
    ROW(ink_fr_lexicon)
    ROW(ink_fr_charset)
    ROW(ink_pt_lexicon)
    ROW(ink_pt_charset)
    ROW(ink_it_lexicon)
    ROW(ink_it_charset)
    ROW(ink_vi_lexicon)
    ROW(ink_vi_charset)
    ROW(ink_ja)
    ROW(ink_ja_classes)
    ROW(ink_ja_lm)
    ROW(ink_zh)
    ROW(ink_zh_classes)
    ROW(ink_zh_hans_lm)
    ROW(ink_zh_hant_lm)
    ROW(ink_shapes)
    ROW(ink_shapes_geometry)
    ROW(ink_shapes_labels)
lite_bundled_table_end:
    .size lite_bundled_table, lite_bundled_table_end - lite_bundled_table

    .section .rodata.lite_bundled_names, "a", @progbits
    .balign 8
    .globl lite_bundled_table_count
    .hidden lite_bundled_table_count
    .type lite_bundled_table_count, @object
lite_bundled_table_count:
    .quad (lite_bundled_table_end - lite_bundled_table) / 24
    .size lite_bundled_table_count, 8

#endif

// No executable stack (without this note the linker assumes this object needs one).
#if defined(__ELF__)
    .section .note.GNU-stack, "", @progbits
#endif
