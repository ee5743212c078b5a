// kiln — the embedded weight blob written straight into an ELF object of its own, never through LLVM IR.
//
// A model's weights (440 MB for BERT-base) made a ConstantDataArray that LLVM
// hashed, copied and printed byte by byte into the object: about 2 s of CPU
// and 3 s of page faults per compile. The blob needs no code generation: a
// relocatable ELF object with one read-only section holding it and one
// global symbol naming it is all the linker needs.
#include "kiln/Target/CPU.h"

#include "kiln/abi/model_format.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace kiln {

namespace {
uint16_t elfMachine(const Triple &triple) {
  switch (triple.getArch()) {
  case Triple::x86_64:
    return ELF::EM_X86_64;
  case Triple::aarch64:
    return ELF::EM_AARCH64;
  case Triple::ppc64le:
    return ELF::EM_PPC64;
  case Triple::riscv64:
    return ELF::EM_RISCV;
  default:
    return ELF::EM_NONE;
  }
}

template <typename T> void put(raw_ostream &os, const T &v) { os.write(reinterpret_cast<const char *>(&v), sizeof(T)); }

void zeros(raw_ostream &os, uint64_t n) {
  static const char block[4096] = {};
  for (; n > 0; n -= std::min<uint64_t>(n, sizeof(block)))
    os.write(block, std::min<uint64_t>(n, sizeof(block)));
}
} // namespace

bool canWriteWeightsObject(const Triple &triple) {
  return triple.isOSBinFormatELF() && triple.isArch64Bit() && triple.isLittleEndian() &&
         elfMachine(triple) != ELF::EM_NONE;
}

mlir::LogicalResult writeWeightsObject(StringRef objPath, const Triple &triple, const WeightLayout &layout,
                                       const std::map<std::string, std::vector<char>> &weights,
                                       std::string &error) {
  if (!canWriteWeightsObject(triple)) {
    error = "no weights object for target " + triple.str();
    return mlir::failure();
  }
  std::error_code ec;
  raw_fd_ostream os(objPath, ec);
  if (ec) {
    error = "cannot write '" + objPath.str() + "': " + ec.message();
    return mlir::failure();
  }
  // File: header, blob (64-byte aligned), symbol table, names, section headers.
  const char strtab[] = "\0" KILN_SYM_WEIGHTS;
  const char shstrtab[] = "\0.lrodata.kiln_weights\0.symtab\0.strtab\0.shstrtab\0.note.GNU-stack";
  const uint32_t nRodata = 1, nSymtab = nRodata + 22, nStrtab = nSymtab + 8, nShstrtab = nStrtab + 8,
                 nStack = nShstrtab + 10;
  uint64_t blobSize = std::max<uint64_t>(layout.totalBytes, 1); // a symbol needs a byte
  uint64_t blobOff = KILN_WEIGHT_ALIGNMENT;
  uint64_t symOff = (blobOff + blobSize + 7) / 8 * 8;
  uint64_t strOff = symOff + 2 * sizeof(ELF::Elf64_Sym);
  uint64_t shstrOff = strOff + sizeof(strtab);
  uint64_t shOff = (shstrOff + sizeof(shstrtab) + 7) / 8 * 8;
  const uint16_t numSections = 6;

  ELF::Elf64_Ehdr eh;
  std::memset(&eh, 0, sizeof(eh));
  std::memcpy(eh.e_ident, ELF::ElfMagic, 4);
  eh.e_ident[ELF::EI_CLASS] = ELF::ELFCLASS64;
  eh.e_ident[ELF::EI_DATA] = ELF::ELFDATA2LSB;
  eh.e_ident[ELF::EI_VERSION] = ELF::EV_CURRENT;
  eh.e_type = ELF::ET_REL;
  eh.e_machine = elfMachine(triple);
  eh.e_version = ELF::EV_CURRENT;
  eh.e_shoff = shOff;
  eh.e_ehsize = sizeof(ELF::Elf64_Ehdr);
  eh.e_shentsize = sizeof(ELF::Elf64_Shdr);
  eh.e_shnum = numSections;
  eh.e_shstrndx = 4;
  put(os, eh);
  zeros(os, blobOff - sizeof(eh));

  // The blob: each weight at its offset, zeros between.
  std::vector<const WeightLayout::Entry *> order;
  for (const WeightLayout::Entry &e : layout.entries)
    order.push_back(&e);
  std::sort(order.begin(), order.end(), [](auto *a, auto *b) { return a->offset < b->offset; });
  uint64_t at = 0;
  for (const WeightLayout::Entry *e : order) {
    auto it = weights.find(e->name);
    if (it == weights.end() || it->second.size() != e->nbytes || e->offset < at) {
      error = "weight '" + e->name + "' does not match its place in the weight layout";
      return mlir::failure();
    }
    zeros(os, e->offset - at);
    os.write(it->second.data(), it->second.size());
    at = e->offset + e->nbytes;
  }
  zeros(os, blobSize - at + (symOff - blobOff - blobSize));

  ELF::Elf64_Sym syms[2];
  std::memset(syms, 0, sizeof(syms));
  syms[1].st_name = 1;
  syms[1].setBindingAndType(ELF::STB_GLOBAL, ELF::STT_OBJECT);
  syms[1].st_shndx = 1;
  syms[1].st_size = blobSize;
  put(os, syms);
  os.write(strtab, sizeof(strtab));
  os.write(shstrtab, sizeof(shstrtab));
  zeros(os, shOff - shstrOff - sizeof(shstrtab));

  auto section = [&](uint32_t name, uint32_t type, uint64_t flags, uint64_t off, uint64_t size, uint32_t link,
                     uint32_t info, uint64_t align, uint64_t entsize) {
    ELF::Elf64_Shdr sh;
    std::memset(&sh, 0, sizeof(sh));
    sh.sh_name = name, sh.sh_type = type, sh.sh_flags = flags, sh.sh_offset = off, sh.sh_size = size;
    sh.sh_link = link, sh.sh_info = info, sh.sh_addralign = align, sh.sh_entsize = entsize;
    put(os, sh);
  };
  section(0, ELF::SHT_NULL, 0, 0, 0, 0, 0, 0, 0);
  // .lrodata: x86-64's large-data section, placed after the code and small
  // data so a blob over 2 GB leaves their PC-relative references in reach.
  section(nRodata, ELF::SHT_PROGBITS,
          ELF::SHF_ALLOC | (triple.getArch() == Triple::x86_64 ? ELF::SHF_X86_64_LARGE : 0), blobOff, blobSize, 0,
          0, KILN_WEIGHT_ALIGNMENT, 0);
  section(nSymtab, ELF::SHT_SYMTAB, 0, symOff, sizeof(syms), 3, 1, 8, sizeof(ELF::Elf64_Sym));
  section(nStrtab, ELF::SHT_STRTAB, 0, strOff, sizeof(strtab), 0, 0, 1, 0);
  section(nShstrtab, ELF::SHT_STRTAB, 0, shstrOff, sizeof(shstrtab), 0, 0, 1, 0);
  section(nStack, ELF::SHT_PROGBITS, 0, shOff, 0, 0, 0, 1, 0);
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + objPath.str() + "': " + os.error().message();
    os.clear_error();
    return mlir::failure();
  }
  return mlir::success();
}

} // namespace kiln
