// A shared library that is not a Tessera plugin: it exports neither entry point.
extern "C" __attribute__((visibility("default"))) int tessera_unrelated_function()
{
    return 42;
}
