//! The kernels compiled at build time (see build.rs), and the choice of image.

/// One `kernels/*.cu` file, compiled to portable PTX and to CUBIN per architecture.
#[derive(Debug)]
pub struct KernelImage {
    /// The file's stem, e.g. "axpy".
    pub name: &'static str,
    /// The PTX's virtual architecture (70 = compute_70).
    pub ptx_arch: u32,
    /// NUL-terminated PTX text.
    pub ptx: &'static [u8],
    /// (sm, machine code) pairs, e.g. (90, cubin for sm_90).
    pub cubins: &'static [(u32, &'static [u8])],
}

/// Which binary of an image a device gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageChoice {
    /// Machine code built for exactly this architecture.
    Cubin(u32),
    /// PTX, compiled by the driver's JIT at load time (and cached by it).
    Ptx(u32),
}

impl KernelImage {
    /// The CUBIN of the same major version and the highest minor not above the
    /// GPU's (machine code for sm_XY runs on sm_XZ with Z ≥ Y: sm_80 serves 8.6
    /// and 8.9); otherwise PTX. None when the GPU predates the PTX's architecture.
    pub fn choose(&self, cc_major: u32, cc_minor: u32) -> Option<ImageChoice> {
        let sm = cc_major * 10 + cc_minor;
        if sm < self.ptx_arch {
            return None;
        }
        let compatible = self.cubins.iter().map(|(arch, _)| *arch).filter(|arch| arch / 10 == cc_major && *arch <= sm).max();
        match compatible {
            Some(arch) if std::env::var_os("MUBLAS_FORCE_PTX").is_none() => Some(ImageChoice::Cubin(arch)),
            _ => Some(ImageChoice::Ptx(self.ptx_arch)),
        }
    }

    pub fn bytes(&self, choice: ImageChoice) -> &'static [u8] {
        match choice {
            ImageChoice::Ptx(_) => self.ptx,
            ImageChoice::Cubin(sm) => self.cubins.iter().find(|(a, _)| *a == sm).map(|(_, b)| *b).unwrap_or(self.ptx),
        }
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
    fn every_image_has_ptx_and_the_cubins() {
        assert!(!ALL.is_empty());
        for image in ALL {
            assert_eq!(image.ptx.last(), Some(&0), "{} PTX must be NUL-terminated", image.name);
            assert!(std::str::from_utf8(&image.ptx[..image.ptx.len() - 1]).unwrap().contains(".version"));
            let archs: Vec<u32> = image.cubins.iter().map(|(a, _)| *a).collect();
            assert_eq!(archs, vec![80, 90]);
            for (_, cubin) in image.cubins {
                assert_eq!(&cubin[..4], b"\x7fELF", "{} cubin is an ELF file", image.name);
            }
        }
    }

    #[test]
    fn image_choice_by_compute_capability() {
        let image = &AXPY;
        assert_eq!(image.choose(9, 0), Some(ImageChoice::Cubin(90)));
        assert_eq!(image.choose(8, 0), Some(ImageChoice::Cubin(80)));
        assert_eq!(image.choose(8, 6), Some(ImageChoice::Cubin(80)));
        assert_eq!(image.choose(8, 9), Some(ImageChoice::Cubin(80)));
        assert_eq!(image.choose(7, 5), Some(ImageChoice::Ptx(70)));
        assert_eq!(image.choose(10, 0), Some(ImageChoice::Ptx(70)));
        assert_eq!(image.choose(6, 1), None);
    }
}
