//! The kernels compiled at build time (see build.rs), and the choice of image.

/// One `kernels/*.cu` file, compiled to PTX and to CUBIN per architecture.
#[derive(Debug)]
pub struct KernelImage {
    /// The file's stem, e.g. "axpy".
    pub name: &'static str,
    /// (virtual arch, NUL-terminated PTX text), oldest first: (70, PTX for compute_70).
    pub ptxs: &'static [(u32, &'static [u8])],
    /// (sm, machine code) pairs, e.g. (90, cubin for sm_90).
    pub cubins: &'static [(u32, &'static [u8])],
}

/// Which binary of an image a device gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageChoice {
    /// Machine code built for exactly this architecture.
    Cubin(u32),
    /// PTX for this virtual architecture, compiled by the driver's JIT at load
    /// time (and cached by it).
    Ptx(u32),
}

/// How `MUBLAS_FORCE_PTX` overrides the choice: unset, the newest PTX that
/// runs, or one virtual architecture (`MUBLAS_FORCE_PTX=70`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxForcing {
    No,
    Newest,
    Arch(u32),
}

impl PtxForcing {
    pub fn from_env() -> PtxForcing {
        match std::env::var("MUBLAS_FORCE_PTX") {
            Err(_) => PtxForcing::No,
            Ok(value) => match value.trim().parse::<u32>() {
                Ok(arch) if arch >= 10 => PtxForcing::Arch(arch),
                _ => PtxForcing::Newest,
            },
        }
    }
}

impl KernelImage {
    /// The oldest virtual architecture with PTX: older GPUs cannot run the image.
    pub fn oldest_ptx_arch(&self) -> u32 {
        self.ptxs.iter().map(|(arch, _)| *arch).min().unwrap_or(u32::MAX)
    }

    /// The CUBIN of the same major version and the highest minor not above the
    /// GPU's (machine code for sm_XY runs on sm_XZ with Z ≥ Y: sm_80 serves 8.6
    /// and 8.9); otherwise the newest PTX not above the GPU, so that a newer GPU
    /// keeps the kernels' sm_80 code paths. None when the GPU predates every
    /// PTX, or when the forced PTX architecture is not embedded or too new.
    pub fn choose(&self, cc_major: u32, cc_minor: u32, forcing: PtxForcing) -> Option<ImageChoice> {
        let sm = cc_major * 10 + cc_minor;
        let newest_ptx = self.ptxs.iter().map(|(arch, _)| *arch).filter(|arch| *arch <= sm).max()?;
        let cubin = self.cubins.iter().map(|(arch, _)| *arch).filter(|arch| arch / 10 == cc_major && *arch <= sm).max();
        match (forcing, cubin) {
            (PtxForcing::Arch(arch), _) => {
                self.ptxs.iter().any(|(a, _)| *a == arch && arch <= sm).then_some(ImageChoice::Ptx(arch))
            }
            (PtxForcing::No, Some(arch)) => Some(ImageChoice::Cubin(arch)),
            _ => Some(ImageChoice::Ptx(newest_ptx)),
        }
    }

    /// The bytes of a choice that [`choose`](Self::choose) made.
    pub fn bytes(&self, choice: ImageChoice) -> &'static [u8] {
        let (table, arch) = match choice {
            ImageChoice::Ptx(arch) => (self.ptxs, arch),
            ImageChoice::Cubin(arch) => (self.cubins, arch),
        };
        table.iter().find(|(a, _)| *a == arch).map(|(_, bytes)| *bytes).expect("a choice names an embedded binary")
    }
}

impl std::fmt::Display for ImageChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImageChoice::Cubin(sm) => write!(f, "cubin sm_{sm}"),
            ImageChoice::Ptx(arch) => write!(f, "ptx compute_{arch} (JIT)"),
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/kernel_images.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_image_has_the_ptxs_and_the_cubins() {
        assert!(!ALL.is_empty());
        for image in ALL {
            let archs: Vec<u32> = image.ptxs.iter().map(|(a, _)| *a).collect();
            assert_eq!(archs, vec![70, 80]);
            for (arch, ptx) in image.ptxs {
                assert_eq!(ptx.last(), Some(&0), "{} PTX must be NUL-terminated", image.name);
                let text = std::str::from_utf8(&ptx[..ptx.len() - 1]).unwrap();
                assert!(text.contains(&format!(".target sm_{arch}")), "{} PTX for compute_{arch}", image.name);
            }
            let archs: Vec<u32> = image.cubins.iter().map(|(a, _)| *a).collect();
            assert_eq!(archs, vec![70, 75, 80, 90]);
            for (arch, cubin) in image.cubins {
                assert_eq!(&cubin[..4], b"\x7fELF", "{} cubin is an ELF file", image.name);
                // A CUDA ELF names its SM in the low byte of e_flags (offset 48 in ELF64).
                let e_flags = u32::from_le_bytes(cubin[48..52].try_into().unwrap());
                assert_eq!(e_flags & 0xff, *arch, "{} cubin is machine code for sm_{arch}", image.name);
            }
        }
    }

    #[test]
    fn the_sm_80_code_paths_reach_the_compute_80_ptx_only() {
        // The asynchronous copies of the SGEMM tiles are what newer GPUs would lose on compute_70.
        let text = |arch| std::str::from_utf8(GEMM.bytes(ImageChoice::Ptx(arch))).unwrap().to_owned();
        assert!(text(80).contains("cp.async"));
        assert!(!text(70).contains("cp.async"));
    }

    #[test]
    fn image_choice_by_compute_capability() {
        let image = &AXPY;
        let choose = |major, minor| image.choose(major, minor, PtxForcing::No);
        assert_eq!(choose(9, 0), Some(ImageChoice::Cubin(90)));
        assert_eq!(choose(8, 0), Some(ImageChoice::Cubin(80)));
        assert_eq!(choose(8, 6), Some(ImageChoice::Cubin(80)));
        assert_eq!(choose(8, 9), Some(ImageChoice::Cubin(80)));
        assert_eq!(choose(7, 5), Some(ImageChoice::Cubin(75)));
        assert_eq!(choose(7, 2), Some(ImageChoice::Cubin(70)));
        assert_eq!(choose(7, 0), Some(ImageChoice::Cubin(70)));
        assert_eq!(choose(10, 0), Some(ImageChoice::Ptx(80)));
        assert_eq!(choose(12, 0), Some(ImageChoice::Ptx(80)));
        assert_eq!(choose(6, 1), None);
    }

    #[test]
    fn forcing_the_ptx() {
        let image = &AXPY;
        assert_eq!(image.choose(9, 0, PtxForcing::Newest), Some(ImageChoice::Ptx(80)));
        assert_eq!(image.choose(7, 5, PtxForcing::Newest), Some(ImageChoice::Ptx(70)));
        assert_eq!(image.choose(9, 0, PtxForcing::Arch(70)), Some(ImageChoice::Ptx(70)));
        assert_eq!(image.choose(7, 5, PtxForcing::Arch(80)), None, "compute_80 PTX cannot run on 7.5");
        assert_eq!(image.choose(9, 0, PtxForcing::Arch(75)), None, "no compute_75 PTX is embedded");
        for (arch, _) in image.ptxs.iter().chain(image.cubins) {
            let choice = image.choose(arch / 10, arch % 10, PtxForcing::No).unwrap();
            assert!(!image.bytes(choice).is_empty());
        }
    }
}
