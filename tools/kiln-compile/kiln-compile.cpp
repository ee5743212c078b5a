//===- kiln-compile.cpp - compile a torch.export program to a .so ---------===//
#include "kiln/Compiler/CompileMain.h"

int main(int argc, char **argv) { return kiln::kilnCompileMain(argc, argv); }
