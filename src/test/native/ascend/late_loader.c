/* An Ascend program that loads ACL's runtime only after it started, as a Python program does when it
 * imports torch_npu: the executable links no ACL; it dlopens a library (LIBRARY, built from
 * unchanged_program.c with its main renamed ascend_program) that links libascendcl.so and mstx, and runs
 * that library's program with the remaining arguments, exiting with its code.
 *
 *     late_loader LIBRARY ITERATIONS EXIT_CODE [hang] */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: late_loader LIBRARY [ARGS...]\n");
        return 2;
    }
    if (dlopen("libascendcl.so", RTLD_LAZY | RTLD_NOLOAD) != NULL) {
        fprintf(stderr, "late_loader: ACL is loaded before the program loaded it\n");
        return 2;
    }
    void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "late_loader: %s\n", dlerror());
        return 2;
    }
    int (*program)(int, char**) = (int (*)(int, char**)) dlsym(library, "ascend_program");
    if (program == NULL) {
        fprintf(stderr, "late_loader: %s has no ascend_program\n", argv[1]);
        return 2;
    }
    return program(argc - 1, argv + 1);
}
