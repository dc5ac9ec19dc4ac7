// VCF text written through htslib as the other formats it reads: bgzipped VCF ("wz"), BCF ("wb")
// or uncompressed BCF ("wbu"); shared by the storage tests and fuzz targets that make their own
// inputs. Header-only; links htslib.
#pragma once

#include <htslib/hts.h>
#include <htslib/vcf.h>

#include <fstream>
#include <string>

namespace storage_test {

// `text` (a VCF) written to `path` in htslib's `mode`; false when htslib refuses any of it.
inline bool write_vcf_as(const std::string& text, const std::string& path, const char* mode) {
    const std::string plain = path + ".plain.vcf";
    std::ofstream(plain, std::ios::binary | std::ios::trunc) << text;
    htsFile* in = hts_open(plain.c_str(), "r");
    bcf_hdr_t* hdr = in ? bcf_hdr_read(in) : nullptr;
    htsFile* out = hts_open(path.c_str(), mode);
    bool ok = in && hdr && out && bcf_hdr_write(out, hdr) == 0;
    bcf1_t* rec = bcf_init();
    while (ok && bcf_read(in, hdr, rec) == 0) ok = bcf_write(out, hdr, rec) == 0;
    bcf_destroy(rec);
    if (hdr) bcf_hdr_destroy(hdr);
    if (in) hts_close(in);
    if (out && hts_close(out) != 0) ok = false;
    std::remove(plain.c_str());
    return ok;
}

}  // namespace storage_test
