//! A layer's total over its entities (devices, interfaces, mounts): the
//! sum of their counter differences, only when each has them over the
//! interval itself. A partial sum, or one over mixed intervals, would look
//! like a drop in load.

/// Counter differences of one entity over one interval that sum with those
/// of another.
pub trait Delta: Copy {
    /// The interval the differences cover, in centiseconds of the
    /// source's clock.
    fn itv_cs(&self) -> u64;
    /// Adds another entity's differences over the same interval.
    fn accumulate(&mut self, other: &Self);
}

/// The sum of `deltas` (one per entity that counts in the total), or `None`
/// when there is no interval, no entity, or one entity without differences
/// over exactly `itv_cs`.
pub fn complete_sum<'a, D: Delta + 'a>(
    itv_cs: Option<u64>,
    deltas: impl IntoIterator<Item = Option<&'a D>>,
) -> Option<D> {
    let itv = itv_cs?;
    let mut sum: Option<D> = None;
    for d in deltas {
        let d = d.filter(|d| d.itv_cs() == itv)?;
        match &mut sum {
            Some(s) => s.accumulate(d),
            None => sum = Some(*d),
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Ops {
        itv_cs: u64,
        ops: u64,
    }

    impl Delta for Ops {
        fn itv_cs(&self) -> u64 {
            self.itv_cs
        }
        fn accumulate(&mut self, other: &Self) {
            self.ops += other.ops;
        }
    }

    #[test]
    fn only_a_sum_over_every_entity_and_the_one_interval() {
        let (a, b) = (
            Ops {
                itv_cs: 100,
                ops: 1,
            },
            Ops {
                itv_cs: 100,
                ops: 2,
            },
        );
        let late = Ops {
            itv_cs: 300,
            ops: 4,
        };
        assert_eq!(
            complete_sum(Some(100), [Some(&a), Some(&b)]),
            Some(Ops {
                itv_cs: 100,
                ops: 3
            })
        );
        assert_eq!(complete_sum(Some(100), [Some(&a), None]), None);
        assert_eq!(complete_sum(Some(100), [Some(&a), Some(&late)]), None);
        assert_eq!(complete_sum::<Ops>(Some(100), []), None);
        assert_eq!(complete_sum(None, [Some(&a)]), None);
    }
}
