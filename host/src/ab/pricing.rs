//! Prices and prompt caching of a provider, from `[pricing.<name>]` in the configuration, and
//! the cost of a prompt given the prefix it shares with the previous request of its run.

/// A provider's input prices (per million tokens) and caching rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Pricing {
    pub name: String,
    pub input_per_mtok: f64,
    /// Price of a token read from the cache.
    pub cache_read_per_mtok: f64,
    /// Price of a token written to the cache (the input price where writes cost nothing extra).
    pub cache_write_per_mtok: f64,
    /// A prompt shorter than this is neither read from nor written to the cache; 0 disables
    /// caching.
    pub min_cacheable_tokens: usize,
    /// Cached prefixes count in steps of this many tokens (OpenAI: 128); 1 for any length.
    pub cache_step_tokens: usize,
}

/// What one prompt costs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PromptCost {
    /// Tokens read from the cache.
    pub cached: usize,
    /// Tokens written to the cache.
    pub written: usize,
    /// Tokens paid at the plain input price.
    pub uncached: usize,
    /// In dollars.
    pub cost: f64,
}

impl Pricing {
    /// The cost of a prompt of `total` tokens whose first `shared` tokens equal the previous
    /// request of the same run.
    ///
    /// A prompt shorter than the minimum pays the plain input price for everything. Otherwise
    /// the shared prefix, when it reaches the minimum, is read from the cache (cut down to the
    /// cache step), and the rest is written to it, at the write price.
    pub fn cost(&self, total: usize, shared: usize) -> PromptCost {
        let per = |tokens: usize, price: f64| tokens as f64 * price / 1_000_000.0;
        if self.min_cacheable_tokens == 0 || total < self.min_cacheable_tokens {
            return PromptCost {
                uncached: total,
                cost: per(total, self.input_per_mtok),
                ..PromptCost::default()
            };
        }
        let step = self.cache_step_tokens.max(1);
        let cached = if shared >= self.min_cacheable_tokens {
            shared.min(total) / step * step
        } else {
            0
        };
        let written = total - cached;
        PromptCost {
            cached,
            written,
            uncached: 0,
            cost: per(cached, self.cache_read_per_mtok) + per(written, self.cache_write_per_mtok),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anthropic() -> Pricing {
        Pricing {
            name: "anthropic".into(),
            input_per_mtok: 3.0,
            cache_read_per_mtok: 0.3,
            cache_write_per_mtok: 3.75,
            min_cacheable_tokens: 1024,
            cache_step_tokens: 1,
        }
    }

    #[test]
    fn short_prompts_pay_the_input_price() {
        let c = anthropic().cost(1000, 900);
        assert_eq!((c.cached, c.written, c.uncached), (0, 0, 1000));
        assert!((c.cost - 0.003).abs() < 1e-12);
    }

    #[test]
    fn long_prompts_read_the_shared_prefix_and_write_the_rest() {
        let c = anthropic().cost(3000, 2000);
        assert_eq!((c.cached, c.written, c.uncached), (2000, 1000, 0));
        assert!((c.cost - (2000.0 * 0.3 + 1000.0 * 3.75) / 1e6).abs() < 1e-12);
        let first = anthropic().cost(3000, 0);
        assert_eq!((first.cached, first.written), (0, 3000));
    }

    #[test]
    fn openai_counts_the_cache_in_steps() {
        let openai = Pricing {
            name: "openai".into(),
            input_per_mtok: 1.25,
            cache_read_per_mtok: 0.125,
            cache_write_per_mtok: 1.25,
            min_cacheable_tokens: 1024,
            cache_step_tokens: 128,
        };
        assert_eq!(openai.cost(5000, 1100).cached, 1024);
        assert_eq!(openai.cost(5000, 1000).cached, 0);
    }
}
