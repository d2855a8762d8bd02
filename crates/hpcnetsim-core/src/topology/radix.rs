//! Mixed-radix numbering: switch indices as positions along dimensions (tori, HyperX,
//! twin tori, tree labels).

/// Mixed-radix digits of `index` (least significant first) for the given radices.
pub(crate) fn digits(mut index: usize, radices: &[usize]) -> Vec<usize> {
    radices
        .iter()
        .map(|&r| {
            let d = index % r;
            index /= r;
            d
        })
        .collect()
}

/// Inverse of [`digits`].
pub(crate) fn from_digits(digits: &[usize], radices: &[usize]) -> usize {
    digits.iter().zip(radices).rev().fold(0, |acc, (&d, &r)| acc * r + d)
}
